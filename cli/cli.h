/* cli.h - the biobench subcommands.  Each returns the process exit code:
 * 0 ok, 1 the run failed, 2 usage error. */
#ifndef BB_CLI_H
#define BB_CLI_H

int bb_cmd_run(int argc, char **argv);
int bb_cmd_ab(int argc, char **argv);

#endif
