/* engine.c: being written */
