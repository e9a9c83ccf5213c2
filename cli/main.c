/* biobench - command-line front end.  `biobench run` runs one benchmark;
 * `biobench ab` runs an A/B pair locally. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: biobench COMMAND [OPTIONS]\n"
		"\n"
		"commands:\n"
		"  run [OPTIONS] TARGET   run one benchmark on TARGET (nop, a file or a block device)\n"
		"  ab  [OPTIONS] --a KEY=VAL... --b KEY=VAL... TARGET\n"
		"                         run A and B interleaved (ABAB...) and print them side by side\n"
		"  help                   this text\n"
		"\n"
		"`biobench COMMAND --help` lists a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "run"))
		return bb_cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ab"))
		return bb_cmd_ab(argc - 1, argv + 1);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "biobench: unknown command '%s' (see biobench help)\n",
		argv[1]);
	return 2;
}
