/* bioset.c: being written */
