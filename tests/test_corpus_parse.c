/* test_corpus_parse.c - every module of the shared corpus: the ones that must
 * be rejected are rejected with the expected message at the expected place,
 * every other one parses and its IR satisfies the structural invariants.
 *
 * Rejections: the fragment that calls fused computations it does not contain,
 * and the derived xla-alias configs (.with_*) whose EXPECTATIONS.tsv row ends
 * in verify=error / parse_or_verify=error. That second set is read from the
 * TSV and must equal the table below, so neither can drift. */
#include "testutil.h"
#include <stdlib.h>
#include <string.h>

static const struct reject {
	const char *file; /* under the shared corpus */
	int line;
	const char *msg;
} rejects[] = {
	{"real/frag_issue_xla20440_cpu_donation_copies_entryonly.hlo", 5,
	 "use of undefined computation 'fused_computation.1'"},
	{"xla-alias/HloBufferDonorConfigTest_BufferDonorInputOutputAliasOverlap.with_alias_and_donor.hlo", 2,
	 "buffer_donor parameter 0 at {0} is also an input_output_alias source"},
	{"xla-alias/HloBufferDonorConfigTest_SimpleBufferDonor.with_bad_donor.hlo", 2,
	 "buffer_donor parameter 2 is out of range"},
	{"xla-alias/HloBufferDonorConfigTest_SimpleBufferDonorWithTupleInput.with_bad_donor.hlo", 2,
	 "buffer_donor index {2} is not valid for parameter 0"},
	{"xla-alias/HloInputOutputAliasConfigTest_InputDoNotAliasTwice.with_alias.hlo", 2,
	 "input_output_alias parameter 0 at {} is aliased to two outputs ({0} and {1})"},
	{"xla-alias/HloInputOutputAliasConfigTest_OutputDoNotAliasTwice.with_alias.hlo", 2,
	 "input_output_alias output {0} is aliased twice"},
};

/* TSV rows ending in an error that the parser accepts on purpose. */
static const struct {
	const char *file;
	const char *why;
} accepted_errors[] = {
	/* The C++ test calls Verify with a real byte-size function. In a module
	 * without layouts XLA's verifier compares no sizes (semantics doc 7.2),
	 * and XLA's own copy-insertion test RegionAnalysisDoesNotAddCopyFor...
	 * aliases pred[] to s32[] the same way; rejecting one rejects both. */
	{"xla-alias/HloInputOutputAliasConfigTest_SizesMustMatch.with_alias.hlo",
	 "sizes are compared only for shapes with layouts"},
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct reject *find_reject(const char *rel)
{
	for (size_t i = 0; i < N(rejects); i++)
		if (strcmp(rejects[i].file, rel) == 0)
			return &rejects[i];
	return NULL;
}

static int is_accepted_error(const char *rel)
{
	for (size_t i = 0; i < N(accepted_errors); i++)
		if (strcmp(accepted_errors[i].file, rel) == 0)
			return 1;
	return 0;
}

/* Structural invariants of a parsed module. */
static void check_module(const char *rel, const struct hlo_module *m)
{
	if (m->n_comps < 1 || !m->entry || !m->entry->is_entry || !m->name)
		fail_msg("%s: no entry/computations", rel);
	int32_t gid = 0;
	for (int32_t c = 0; c < m->n_comps; c++) {
		const struct hlo_computation *comp = m->comps[c];
		if (comp->index != c || comp->module != m || comp->n_instrs < 1 || !comp->root ||
		    comp->root->parent != comp)
			fail_msg("%s: computation %s malformed", rel, comp->name);
		for (int32_t p = 0; p < comp->n_params; p++)
			if (!comp->params[p] || comp->params[p]->parameter_number != p)
				fail_msg("%s: %s parameter %d", rel, comp->name, p);
		for (int32_t i = 0; i < comp->n_instrs; i++) {
			const struct hlo_instruction *in = comp->instrs[i];
			if (in->index != i || in->parent != comp || in->gid != gid++ || !in->shape ||
			    in->opcode == OP_UNKNOWN || in->pos.line < 1)
				fail_msg("%s: instruction %s malformed", rel, in->name);
			for (int32_t k = 0; k < in->n_operands; k++) {
				const struct hlo_instruction *o = in->operands[k];
				if (o->parent != comp || o->index >= i)
					fail_msg("%s: %s operand %d out of scope", rel, in->name, k);
				int found = 0;
				for (int32_t u = 0; u < o->n_users; u++)
					found += o->users[u] == in;
				if (found != 1)
					fail_msg("%s: %s is listed %d times as a user of %s", rel,
						 in->name, found, o->name);
			}
			for (int32_t k = 0; k < in->n_called; k++) {
				const struct hlo_computation *callee = in->called[k];
				int found = 0;
				for (int32_t u = 0; callee && u < callee->n_callers; u++)
					found += callee->callers[u].instr == in;
				if (!callee || found != 1 || callee->context == CALL_NONE)
					fail_msg("%s: %s call %d not in the call graph", rel, in->name, k);
			}
		}
	}
	if (gid != m->n_instrs)
		fail_msg("%s: n_instrs %d, counted %d", rel, m->n_instrs, gid);
}

/* The error position must point at an alias / donor entry in the header. */
static void check_header_position(const char *path, const struct diag *d)
{
	size_t len;
	char *text = read_file(path, &len);
	assert_non_null(text);
	const char *p = text;
	for (int l = 1; l < d->first_pos.line && p; l++)
		if ((p = strchr(p, '\n')))
			p++;
	if (!p || strncmp(p, "HloModule", 9) != 0)
		fail_msg("%s: error line %d is not the header", path, d->first_pos.line);
	char c = p[d->first_pos.col - 1];
	if (c != '{' && c != '(')
		fail_msg("%s: error column %d is at '%c', not an entry", path, d->first_pos.col, c);
	free(text);
}

/* Files of EXPECTATIONS.tsv (xla-alias) that are derived configs expected to
 * fail: the last verify assertion of the row says error. */
static void check_tsv_matches_table(void **state)
{
	char *path = shared_path("corpus/xla-alias/EXPECTATIONS.tsv");
	char *tsv = read_file(path, NULL);
	free(path);
	assert_non_null(tsv);
	size_t n_expected = 0;
	for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
		char *tab = strchr(line, '\t');
		if (!tab || !strstr(line, ".with_"))
			continue;
		*tab = 0;
		const char *last = NULL;
		for (const char *q = tab + 1; (q = strstr(q, "verify=")); q += 7)
			last = q + 7;
		if (!last || strncmp(last, "error", 5) != 0)
			continue;
		char rel[512];
		snprintf(rel, sizeof(rel), "xla-alias/%s", line);
		if (is_accepted_error(rel))
			continue;
		if (!find_reject(rel))
			fail_msg("%s: EXPECTATIONS.tsv says error, not in the reject table", rel);
		n_expected++;
	}
	free(tsv);
	/* every xla-alias entry of the table came from the TSV */
	size_t n_table = 0;
	for (size_t i = 0; i < N(rejects); i++)
		n_table += strncmp(rejects[i].file, "xla-alias/", 10) == 0;
	assert_int_equal(n_expected, n_table);
}

static void check_dir(const char *dir, size_t min_files)
{
	char sub[256];
	snprintf(sub, sizeof(sub), "corpus/%s", dir);
	char *base = shared_path(sub);
	char **files = list_files(base, ".hlo");
	size_t n = 0, n_rejected = 0;
	for (char **f = files; *f; f++, n++) {
		char rel[512];
		snprintf(rel, sizeof(rel), "%s/%s", dir, *f + strlen(base) + 1);
		const struct reject *r = find_reject(rel);
		struct diag d;
		diag_init(&d, NULL);
		struct hlo_module *m = hlo_parse_file(*f, &d);
		if (r) {
			if (m)
				fail_msg("%s: parsed, but must be rejected (%s)", rel, r->msg);
			if (!strstr(d.first, r->msg))
				fail_msg("%s: error '%s', want '%s'", rel, d.first, r->msg);
			if (d.first_pos.line != r->line)
				fail_msg("%s: error at line %d, want %d", rel, d.first_pos.line, r->line);
			if (strncmp(rel, "xla-alias/", 10) == 0)
				check_header_position(*f, &d);
			n_rejected++;
		} else {
			if (!m)
				fail_msg("%s: %d:%d: %s", rel, d.first_pos.line, d.first_pos.col, d.first);
			check_module(rel, m);
			hlo_module_free(m);
		}
	}
	if (n < min_files)
		fail_msg("%s: %zu .hlo files, expected at least %zu (is HLOPROOF_SHARED right?)",
			 base, n, min_files);
	size_t want_rejected = 0;
	for (size_t i = 0; i < N(rejects); i++)
		want_rejected += strncmp(rejects[i].file, dir, strlen(dir)) == 0 &&
				 rejects[i].file[strlen(dir)] == '/';
	assert_int_equal(n_rejected, want_rejected);
	free_list(files);
	free(base);
}

static void test_real(void **state) { check_dir("real", 22); }
static void test_xla_alias(void **state) { check_dir("xla-alias", 35); }
static void test_xla_copy_insertion(void **state) { check_dir("xla-copy-insertion", 76); }

/* Spot checks that real syntax lands in the typed fields. */
static void test_real_details(void **state)
{
	struct diag d;
	diag_init(&d, stderr);
	char *p = shared_path("corpus/real/jaxdecomp_pfft3d_ifft_gpu16.hlo");
	struct hlo_module *m = hlo_parse_file(p, &d);
	free(p);
	assert_non_null(m);
	assert_true(m->is_scheduled);
	struct hlo_instruction *cc = hlo_find_instruction_any(m, "custom-call.3.0");
	assert_non_null(cc);
	assert_string_equal(cc->ext->custom_call_target, "pfft3d");
	assert_int_equal(cc->ext->n_out_aliases, 1);
	assert_int_equal(cc->ext->n_operand_layout_constraints, 2);
	assert_non_null(cc->ext->backend_config);
	assert_true(cc->ext->backend_config[0] == '"');
	hlo_module_free(m);

	p = shared_path("corpus/real/jaxdecomp_jaxfft_fft_gpu16.hlo");
	m = hlo_parse_file(p, &d);
	free(p);
	assert_non_null(m);
	struct hlo_instruction *s = hlo_find_instruction_any(m, "all-to-all-start");
	assert_non_null(s);
	assert_int_equal(s->opcode, OP_ASYNC_START);
	assert_int_equal(s->async_wrapped_opcode, OP_ALL_TO_ALL);
	assert_true(strstr(s->op_name, "axis_name=('y',)") != NULL);
	hlo_module_free(m);

	p = shared_path("corpus/real/tpu_waymo_fusion_sched.hlo");
	m = hlo_parse_file(p, &d);
	free(p);
	assert_non_null(m);
	struct hlo_instruction *b = hlo_find_instruction_any(m, "bitcast_input.22");
	assert_non_null(b);
	assert_int_equal(b->shape->layout.memory_space, 1);
	assert_string_equal(b->shape->layout.ext, "T(8,128)(2,1)S(1)");
	hlo_module_free(m);

	p = shared_path("corpus/real/jax_mass_matrix_stackframes_preopt.hlo");
	m = hlo_parse_file(p, &d);
	free(p);
	assert_non_null(m);
	assert_non_null(m->stack_frames);
	assert_true(strncmp(m->stack_frames, "FileNames", 9) == 0);
	hlo_module_free(m);

	p = shared_path("corpus/real/ptxla_neuron_gpt2_tp8.hlo");
	m = hlo_parse_file(p, &d);
	free(p);
	assert_non_null(m);
	assert_int_equal(m->n_aliases, 2);
	assert_int_equal(m->aliases[0].kind, ALIAS_MUST);
	assert_int_equal(m->aliases[0].param, 5);
	hlo_module_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_tsv_matches_table),
		cmocka_unit_test(test_real),
		cmocka_unit_test(test_xla_alias),
		cmocka_unit_test(test_xla_copy_insertion),
		cmocka_unit_test(test_real_details),
	};
	return cmocka_run_group_tests_name("corpus_parse", tests, NULL, NULL);
}
