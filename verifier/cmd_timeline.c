/* cmd_timeline.c - `hloproof timeline`: who owns each buffer at every
 * position of a computation, as HTML, SVG or Trace Event JSON (issue 24). */
#include "atomic_out.h"
#include "cli.h"
#include "session.h"
#include "timeline.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum tl_format { FMT_HTML = 0, FMT_SVG, FMT_TRACE };

struct writer {
	enum tl_format format;
	const struct timeline *t;
};

static int write_it(FILE *f, void *arg)
{
	const struct writer *w = arg;
	switch (w->format) {
	case FMT_SVG: return timeline_write_svg(f, w->t, 0);
	case FMT_TRACE: return timeline_write_trace(f, w->t);
	default: return timeline_write_html(f, w->t);
	}
}

static int parse_count(const char *s, long long max, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

int cmd_timeline(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, 0, 'f'},
		{"output", required_argument, 0, 'o'},
		{"computation", required_argument, 0, 'c'},
		{"top", required_argument, 0, 'n'},
		{"min-bytes", required_argument, 0, 'b'},
		CLI_STAGE_OPTION,
		{0, 0, 0, 0},
	};
	struct timeline_options opt;
	timeline_default_options(&opt);
	enum tl_format format = FMT_HTML;
	const char *output = NULL;
	long long v;
	int c;
	struct cli_analysis ca;
	cli_analysis_init(&ca);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "html"))
				format = FMT_HTML;
			else if (!strcmp(optarg, "svg"))
				format = FMT_SVG;
			else if (!strcmp(optarg, "chrome-trace"))
				format = FMT_TRACE;
			else
				return cli_usage_error("timeline", "unknown format '%s'", optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case 'c':
			opt.computation = optarg;
			break;
		case 'n':
			if (parse_count(optarg, 100000, &v) < 0)
				return cli_usage_error("timeline", "--top wants a count up to 100000, not '%s'",
						       optarg);
			opt.top = (int32_t)v;
			break;
		case 'b':
			if (parse_count(optarg, (long long)1 << 62, &v) < 0)
				return cli_usage_error("timeline", "--min-bytes wants bytes, not '%s'", optarg);
			opt.min_bytes = (uint64_t)v;
			break;
		case CLI_OPT_STAGE:
			if (cli_analysis_option("timeline", c, optarg, &ca) < 0)
				return EXIT_INPUT;
			break;
		default:
			return cli_usage_error("timeline", "bad option");
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("timeline", "expects exactly one FILE");
	const char *input = argv[optind];
	if (atomic_out_same_file(input, output))
		return cli_usage_error("timeline", "output file '%s' is the input", output);
	struct diag d;
	diag_init(&d, stderr);
	struct hlo_module *m = hlo_parse_file(input, &d);
	if (!m)
		return EXIT_INPUT;
	/* everything the picture shows: the copy verdicts and hazards */
	struct session_options so = {0};
	session_options_for_rules(&so);
	so.stage = (enum module_stage)ca.stage;
	struct session *s = session_open(m, NULL, &so);
	const struct copy_verdicts *cv = session_copy_verdicts(s);
	if (!cv) {
		/* the module is not bad input, only beyond the analysis: no
		 * picture of guesses, the reason and exit 3 (doubt is never
		 * success) */
		const char *why = NULL;
		session_why(s, &why);
		struct srcpos at = session_why_pos(s);
		if (at.line > 0)
			fprintf(stderr, "%s:%d:%d: ", m->file ? m->file : input, at.line, at.col > 0 ? at.col : 1);
		else
			fprintf(stderr, "%s: ", m->file ? m->file : input);
		fprintf(stderr, "unknown: no timeline drawn: %s\n", why ? why : "the module cannot be analysed");
		session_close(s);
		hlo_module_free(m);
		return EXIT_INTERNAL;
	}
	struct timeline *t = timeline_build(m, cv, &opt, &d);
	if (!t) {
		session_close(s);
		hlo_module_free(m);
		return EXIT_INPUT;
	}
	struct writer w = {format, t};
	int status = cli_write_report(output, write_it, &w, &d);
	timeline_free(t);
	session_close(s);
	hlo_module_free(m);
	return status;
}
