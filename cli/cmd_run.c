/* cmd_run.c: being written */
