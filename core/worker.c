/* worker.c: being written */
