/* options.c: being written */
