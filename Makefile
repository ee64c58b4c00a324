# hloproof - static verifier and linter for XLA HLO modules.
# `make demo` and `make check` set up a fresh Debian 12 machine themselves.

PREFIX ?= /usr/local
DESTDIR ?=
BUILD ?= build
SHARED ?= ../shared
CC ?= cc
VERSION := 0.1.0

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes -Wformat=2
BASECFLAGS := -std=c11 -D_GNU_SOURCE -DHLOPROOF_VERSION='"$(VERSION)"' -Iverifier -I$(BUILD) \
	$(shell pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)
LIBS := -lz3 -lxml2 -ljansson -lpthread -lm
TESTLIBS := -lcmocka

# Everything under verifier/ but the CLI goes into the library the tests link.
CLI_SRC := verifier/main.c $(wildcard verifier/cmd_*.c)
LIB_SRC := $(filter-out $(CLI_SRC),$(wildcard verifier/*.c))
RULE_SRC := $(sort $(wildcard rules/*.c))
TEST_SRC := $(sort $(wildcard tests/test_*.c))
TEST_COMMON := tests/testutil.c tests/expect.c
HDRS := $(wildcard verifier/*.h verifier/*.def)

# Files compiled into the binary as strings (rules/gen-embed.sh): the config schema, rule docs.
EMBED_SRC := docs/config.rng docs/annotations.rng $(filter-out docs/rules/README.md,$(sort $(wildcard docs/rules/*.md)))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(RULE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/rules_registry.o \
	$(BUILD)/embedded.o
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

.PHONY: all deps sarif-deps demo check test asan-test install uninstall bench clean conformance fuzz fuzz-deps memcheck soak \
	same-output fixtures-update

all: deps $(BUILD)/hloproof

# --- dependencies -----------------------------------------------------------
DEBS := libz3-dev libxml2-dev libcmocka-dev libjansson-dev pkg-config z3 libxml2-utils
deps:
	@sh .ci/deps.sh $(DEBS)

# Microsoft's SARIF Multitool (npm, pinned in the script) for tests/ci-outputs.sh,
# into build/node (not committed).
sarif-deps:
	@sh .ci/sarif-deps.sh $(BUILD)/node >/dev/null

# --- build -------------------------------------------------------------------
$(BUILD)/%.o: %.c $(HDRS) | deps
	@mkdir -p $(dir $@)
	$(CC) $(BASECFLAGS) $(CFLAGS) $(WARN) -c $< -o $@

# The rule registry is generated from the file names in rules/.
$(BUILD)/rules_registry.c: $(RULE_SRC) Makefile
	@mkdir -p $(BUILD)
	@sh rules/gen-registry.sh $(RULE_SRC) > $@.tmp && mv $@.tmp $@

$(BUILD)/rules_registry.o: $(BUILD)/rules_registry.c $(HDRS)
	$(CC) $(BASECFLAGS) $(CFLAGS) $(WARN) -c $< -o $@

$(BUILD)/embedded.c: rules/gen-embed.sh $(EMBED_SRC) Makefile
	@mkdir -p $(BUILD)
	@sh rules/gen-embed.sh $(EMBED_SRC) > $@.tmp && mv $@.tmp $@

$(BUILD)/embedded.o: $(BUILD)/embedded.c $(HDRS)
	$(CC) $(BASECFLAGS) $(CFLAGS) $(WARN) -c $< -o $@

$(BUILD)/libhloproof.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/hloproof: $(CLI_OBJ) $(BUILD)/libhloproof.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libhloproof.a $(LIBS)

$(BUILD)/hlogen: bench/hlogen.c | deps
	@mkdir -p $(BUILD)
	$(CC) $(BASECFLAGS) $(CFLAGS) $(WARN) -o $@ $<

# The metamorphic test's module rewriter: a tool, not a suite (not in TEST_BIN).
$(BUILD)/tests/mutate: tests/mutate.c $(BUILD)/libhloproof.a
	@mkdir -p $(dir $@)
	$(CC) $(BASECFLAGS) $(CFLAGS) $(WARN) -o $@ $< $(BUILD)/libhloproof.a $(LIBS)

# The fixture tags for the shell tests (tests/expect.h): `expect get|set TAG FILE`.
$(BUILD)/tests/expect: tests/expect_tool.c tests/expect.c tests/expect.h | deps
	@mkdir -p $(dir $@)
	$(CC) $(BASECFLAGS) $(CFLAGS) $(WARN) -Itests -o $@ tests/expect_tool.c tests/expect.c

$(BUILD)/tests/%: tests/%.c $(TEST_COMMON) tests/testutil.h tests/expect.h $(BUILD)/libhloproof.a
	@mkdir -p $(dir $@)
	$(CC) $(BASECFLAGS) $(CFLAGS) $(WARN) -Itests -o $@ $< $(TEST_COMMON) $(TEST_EXTRA) $(BUILD)/libhloproof.a $(TESTLIBS) $(LIBS)

# The brute-force oracle and the module generator (issue 4) link into their suites only.
# The agreement check (deciders vs oracle) links into test_agreement and the soak driver.
ORACLE_SRC := tests/oracle.c tests/gen_small.c
AGREE_SRC := $(ORACLE_SRC) tests/agree.c
$(BUILD)/tests/test_oracle: TEST_EXTRA = $(ORACLE_SRC)
$(BUILD)/tests/test_oracle: $(ORACLE_SRC) $(ORACLE_SRC:.c=.h)
$(BUILD)/tests/test_agreement: TEST_EXTRA = $(AGREE_SRC)
$(BUILD)/tests/test_agreement: $(AGREE_SRC) $(AGREE_SRC:.c=.h)
# hloproof fix against the joint oracle (issue 25)
FIX_ORACLE_SRC := $(ORACLE_SRC) tests/oracle_joint.c
$(BUILD)/tests/test_fix: TEST_EXTRA = $(FIX_ORACLE_SRC)
$(BUILD)/tests/test_fix: $(FIX_ORACLE_SRC) $(FIX_ORACLE_SRC:.c=.h)

# --- tests -------------------------------------------------------------------
# Every cmocka suite, then the shell tests (CLI, bad corpus), then the same
# suites again built with AddressSanitizer and UndefinedBehaviorSanitizer.
# tests/limits.sh, tests/outputs.sh: bounds, time budget, atomic results (issue 8);

# tests/copy_count.sh: every copy of the corpora, counted from the text, is in copies[];
# tests/timeline.sh: the timeline's pages in headless Chromium, its SVG and trace (issue 24).
# tests/ci-outputs.sh: what CI reads (issue 23), validated with xmllint and the SARIF Multitool.

# tests/repairs.sh: every printed repair re-checked on the text with its edges added.
# tests/donation-readings.sh: donation and check read each donation alike (issue 21).
# tests/headlines.sh: headline lengths over the real corpus and every rule (issue 22).
# tests/conformance.sh: the conformance tables (copy insertion, the simplifier's copy
# tests) explained and docs/conformance.md current.
# tests/fix.sh: hloproof fix on every corpus module, its output re-checked, its diff applied (issue 25).
ROBUST_ENV = HLOPROOF_SHARED=$(SHARED) HLOGEN=$(BUILD)/hlogen
test: all $(TEST_BIN) $(BUILD)/hlogen $(BUILD)/tests/mutate $(BUILD)/tests/expect
	@sh tests/layering.sh
	@HLOPROOF_SHARED=$(SHARED) HLOPROOF=$(BUILD)/hloproof sh tests/run-suites.sh $(TEST_BIN)
	@HLOPROOF_SHARED=$(SHARED) HLOPROOF=$(BUILD)/hloproof sh tests/cli.sh
	@$(ROBUST_ENV) HLOPROOF=$(BUILD)/hloproof sh tests/limits.sh
	@$(ROBUST_ENV) HLOPROOF=$(BUILD)/hloproof sh tests/outputs.sh
	@$(ROBUST_ENV) HLOPROOF=$(BUILD)/hloproof MUTATE=$(BUILD)/tests/mutate sh tests/metamorphic.sh
	@HLOPROOF_SHARED=$(SHARED) HLOPROOF=$(BUILD)/hloproof sh tests/gate.sh
	@HLOPROOF_SHARED=$(SHARED) HLOPROOF=$(BUILD)/hloproof sh tests/copy_count.sh
	@HLOPROOF_SHARED=$(SHARED) HLOPROOF=$(BUILD)/hloproof sh tests/timeline.sh
	@$(MAKE) --no-print-directory sarif-deps
	@HLOPROOF_SHARED=$(SHARED) HLOPROOF=$(BUILD)/hloproof SARIF_MULTITOOL=$(BUILD)/node/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool \
	  sh tests/ci-outputs.sh
	@HLOPROOF_SHARED=$(SHARED) HLOPROOF=$(BUILD)/hloproof sh tests/repairs.sh
	@HLOPROOF_SHARED=$(SHARED) HLOPROOF=$(BUILD)/hloproof sh tests/donation-readings.sh
	@HLOPROOF_SHARED=$(SHARED) HLOPROOF=$(BUILD)/hloproof sh tests/headlines.sh
	@HLOPROOF_SHARED=$(SHARED) CONFORMANCE_OUT=$(BUILD)/conformance.md sh tests/conformance.sh $(BUILD)/hloproof && \
	  { cmp -s $(BUILD)/conformance.md docs/conformance.md && echo "conformance: docs/conformance.md is current"; } || \
	  { echo "FAIL: docs/conformance.md differs from what make conformance writes"; exit 1; }
	@HLOPROOF_SHARED=$(SHARED) HLOPROOF=$(BUILD)/hloproof sh tests/fix.sh

asan-test: deps $(BUILD)/hlogen
	@$(MAKE) --no-print-directory BUILD=build-asan \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
	  build-asan/hloproof build-asan/tests/expect $(TEST_BIN:$(BUILD)/%=build-asan/%)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  HLOPROOF_SHARED=$(SHARED) HLOPROOF=build-asan/hloproof sh tests/run-suites.sh $(TEST_BIN:$(BUILD)/%=build-asan/%)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  HLOPROOF_SHARED=$(SHARED) HLOPROOF=build-asan/hloproof sh tests/cli.sh
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  HLOPROOF_SHARED=$(SHARED) HLOPROOF=build-asan/hloproof sh tests/gate.sh
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(ROBUST_ENV) HLOPROOF=build-asan/hloproof sh tests/limits.sh
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(ROBUST_ENV) HLOPROOF=build-asan/hloproof sh tests/outputs.sh

check: test asan-test
	@echo "make check: all suites passed (plain and ASan+UBSan)"

# The main job on a small training step (corpus/demo/train_step.*.hlo): a decode
# loop updating a cache in place, a donated kernel, a layout copy. Exit 1 is a
# finding or a regression by design; 2 and 3 (bad input, unknown) stop the demo.
DEMO = corpus/demo/train_step
demo: all
	@echo "== check $(DEMO).after.hlo (the copies XLA kept, costly first; full report: $(BUILD)/demo-check.txt)"
	@$(BUILD)/hloproof check --color=never $(DEMO).after.hlo > $(BUILD)/demo-check.txt; rc=$$?; \
	  grep -v '^      [^ 0-9]' $(BUILD)/demo-check.txt; test $$rc -le 1
	@echo "== explain $(DEMO).after.hlo w_t (why the layout copy stays)"
	@$(BUILD)/hloproof explain $(DEMO).after.hlo w_t
	@echo "== donation $(DEMO).before.hlo $(DEMO).after.hlo (did XLA reuse the donated kernel?)"
	@$(BUILD)/hloproof donation $(DEMO).before.hlo $(DEMO).after.hlo
	@echo "== gate $(DEMO).after.hlo $(DEMO).head.hlo (a change that adds a copy and drops donate_argnums)"
	@$(BUILD)/hloproof gate --color=never $(DEMO).after.hlo $(DEMO).head.hlo; test $$? -le 1

# After an intended change of wording: rewrite the expectations from what
# hloproof says now, and review the diff (tests/expect.h): the findings of
# every corpus/rules case (expect-finding, from tests/test_rules) and the
# first error of every corpus/bad case (expect). Verdict tags (corpus/copies,
# corpus/donation, corpus/postopt) are decided by hand and never rewritten.
fixtures-update: all $(BUILD)/tests/test_rules $(BUILD)/tests/expect
	@HLOPROOF_FIXTURES_UPDATE=1 HLOPROOF_SHARED=$(SHARED) $(BUILD)/tests/test_rules >/dev/null
	@for f in corpus/bad/*.hlo; do \
	  $(BUILD)/hloproof parse "$$f" 2>&1 >/dev/null </dev/null | head -n 1 | \
	    sed -n "s#^$$f:\([0-9]*:[0-9]*\): error: #\1: #p" | $(BUILD)/tests/expect set expect "$$f" || exit 1; \
	done
	@git status --short corpus/rules corpus/bad

# At merge time: does this build behave as REF (an hloproof binary built from the
# branch point) over both corpora? stdout, stderr and exit status of check, gate,
# donation, explain --all and buffers; KNOWN= a file of intended differences
# (tests/same-output.sh). Not part of `make check`.
REF ?=
KNOWN ?=
same-output: all
	@if [ -z "$(REF)" ]; then echo "make same-output REF=path/to/old/hloproof [KNOWN=file]"; exit 2; fi
	@HLOPROOF_SHARED=$(SHARED) sh tests/same-output.sh $(REF) $(BUILD)/hloproof $(KNOWN)

conformance: all
	@HLOPROOF_SHARED=$(SHARED) sh tests/conformance.sh $(BUILD)/hloproof

# Agreement of the deciders with the oracle on N generated modules from seed START.
N ?= 100000
START ?= 1
soak: all $(BUILD)/tests/soak
	$(BUILD)/tests/soak $(N) $(START)

$(BUILD)/tests/soak: tests/soak.c $(AGREE_SRC) $(AGREE_SRC:.c=.h) $(BUILD)/libhloproof.a
	@mkdir -p $(dir $@)
	$(CC) $(BASECFLAGS) $(CFLAGS) $(WARN) -Itests -o $@ $< $(AGREE_SRC) $(BUILD)/libhloproof.a $(LIBS)

bench: all $(BUILD)/hlogen
	@HLOPROOF_SHARED=$(SHARED) sh bench/run.sh $(BUILD)/hloproof $(BUILD)/hlogen

# --- robustness (issue 8) -----------------------------------------------------
# libFuzzer targets, built with clang (installed by .ci/fuzz-deps.sh when missing); each
# runs FUZZ_SECONDS on one core, seeded from the corpora, with the HLO token dictionary.
# FUZZ_TARGETS=fuzz_parse picks targets; new inputs go to build-fuzz/corpus-TARGET,
# crashes and hangs to build-fuzz/artifacts-TARGET/, the log to build-fuzz/TARGET.log.
FUZZ_SECONDS ?= 60
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_SRC:tests/fuzz/%.c=%)
FUZZ_BIN := $(FUZZ_TARGETS:%=build-fuzz/%)
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
fuzz-deps:
	@sh .ci/fuzz-deps.sh
build-fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(RULE_SRC) $(HDRS) $(BUILD)/rules_registry.c $(BUILD)/embedded.c | deps fuzz-deps
	@mkdir -p build-fuzz
	clang $(BASECFLAGS) $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRC) $(RULE_SRC) $(BUILD)/rules_registry.c $(BUILD)/embedded.c $(LIBS)

# -jobs=1 -workers=1: one core, and libFuzzer writes the job's log (fuzz-0.log) into the
# target's own directory, so runs of different targets do not clobber each other.
# A crash or hang leaves an artifact and fails the target.
# The XML loaders' targets start from tests/fuzz/seeds/NAME with xml.dict; the others
# from the HLO corpora with hlo.dict.
FUZZ_RUN = cd build-fuzz/run-$$n && ./../$$n -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	-timeout=10 -rss_limit_mb=4096 -jobs=1 -workers=1 -print_final_stats=1 \
	-dict=$(CURDIR)/tests/fuzz/$$dict -artifact_prefix=../artifacts-$$n/ ../corpus-$$n $$seeds
fuzz: $(FUZZ_BIN)
	@for n in $(FUZZ_TARGETS); do \
	  case $$n in \
	  fuzz_config) seeds="$(CURDIR)/tests/fuzz/seeds/config"; dict=xml.dict ;; \
	  fuzz_annotations) seeds="$(CURDIR)/corpus/annotations"; dict=xml.dict ;; \
	  *) seeds="$(CURDIR)/corpus $(abspath $(SHARED))/corpus"; dict=hlo.dict ;; \
	  esac; \
	  mkdir -p build-fuzz/corpus-$$n build-fuzz/artifacts-$$n build-fuzz/run-$$n; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS)s (log: build-fuzz/$$n.log)"; \
	  ( $(FUZZ_RUN) ) >build-fuzz/$$n.log 2>&1; st=$$?; \
	  grep -E '^#[0-9]+[[:space:]]+DONE|^Done|stat::number_of_executed_units' build-fuzz/$$n.log | tail -n 3; \
	  if [ $$st != 0 ] || [ -n "$$(ls build-fuzz/artifacts-$$n)" ]; then \
	    echo "fuzz: $$n failed; artifacts:"; ls build-fuzz/artifacts-$$n; exit 1; fi; \
	done

# Every shared and project corpus file under valgrind: no errors, no definitely lost bytes.
memcheck: all
	@HLOPROOF_SHARED=$(SHARED) sh tests/memcheck.sh $(BUILD)/hloproof

# --- install -----------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/hloproof $(DESTDIR)$(PREFIX)/bin/hloproof
	install -m 644 docs/hloproof.1 $(DESTDIR)$(PREFIX)/share/man/man1/hloproof.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/hloproof $(DESTDIR)$(PREFIX)/share/man/man1/hloproof.1

clean:
	rm -rf build build-asan build-fuzz
