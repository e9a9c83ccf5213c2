/* split.c: being written */
