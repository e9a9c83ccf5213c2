/* limits.c: being written */
