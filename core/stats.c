/* stats.c: being written */
