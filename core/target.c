/* target.c: being written */
