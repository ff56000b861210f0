# poslab - three commands do everything on a fresh Debian/Ubuntu machine:
#   make serve   build the lab and serve it at http://localhost:8000
#   make check   the edit-test loop: the native build and its fast tests, the
#                site, the fast Node tests and one page in Chromium (minutes)
#   make test    the full gate: native tests (plain and sanitized), a short
#                fuzz, WebAssembly tests under Node, browser tests in
#                Chromium, Firefox and WebKit
# They install what is missing first: Debian packages with apt-get, npm
# packages with npm ci. CMake does the compiling; this file only orders steps.

SHELL := /bin/bash
BUILD := build
SITE := $(BUILD)/site
PORT ?= 8000
# NumPy comes from Debian's python3-numpy, which only /usr/bin/python3 sees.
PYTHON := /usr/bin/python3
# Debian's emcc runs its JS tools with whatever node is first on PATH, which
# may not look in Debian's module folder.
export NODE_PATH := /usr/share/nodejs

# What building needs, and what only the tests need (Chromium, NumPy,
# PyTorch for models_vs_torch, the fuzzer's runtime, valgrind), so that
# `make serve` and `make dist` stay lean.
BUILD_PACKAGES := cmake gcc make python3 emscripten
TEST_PACKAGES := python3-numpy python3-ipython python3-torch chromium clang libclang-rt-14-dev valgrind
# The other two engines: Firefox (driven by puppeteer-core), WebKitGTK's
# MiniBrowser with its WebDriver (libwebkit2gtk-4.1-0 comes with the driver),
# the X server it draws on, Mesa for its rendering and a font. Without their
# recommends: those add ~165 packages (GStreamer's codecs, portals), over
# 200 MB to download, that a page of text, inputs and a canvas never uses.
ENGINE_PACKAGES := firefox-esr webkit2gtk-driver xvfb libgl1-mesa-dri fonts-dejavu-core
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps deps-test native asan wasm wasm-nosimd site serve dist package check test test-native test-fuzz test-wasm test-browser fuzz fuzz-tokenizer fuzz-safetensors fixtures models bench clean

all: native site

# apt-get only when a package is missing; npm ci only when the lock changed.
# $(2): also nodejs and npm if missing; $(3): options for apt-get install.
define apt_install
	@missing=""; \
	for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$(2)" ]; then command -v node >/dev/null && command -v npm >/dev/null || missing="$$missing nodejs npm"; fi; \
	if [ -n "$$missing" ]; then \
	  echo "poslab: installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -q && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -q $(3) $$missing; \
	fi
endef

deps:
	$(call apt_install,$(BUILD_PACKAGES),node)
	@[ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund

deps-test: deps
	$(call apt_install,$(TEST_PACKAGES))
	$(call apt_install,$(ENGINE_PACKAGES),,--no-install-recommends)

native: deps
	cmake -S . -B $(BUILD)/native -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD)/native -j2

asan: deps
	cmake -S . -B $(BUILD)/asan -DCMAKE_BUILD_TYPE=Debug -DPOSLAB_SANITIZE=ON
	cmake --build $(BUILD)/asan -j2

wasm: deps
	emcmake cmake -S . -B $(BUILD)/wasm -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD)/wasm -j2

# The same core without WebAssembly SIMD, for browsers that lack it.
wasm-nosimd: deps
	emcmake cmake -S . -B $(BUILD)/wasm-nosimd -DCMAKE_BUILD_TYPE=Release -DPOSLAB_SIMD=OFF
	cmake --build $(BUILD)/wasm-nosimd -j2

# The static site: the page, the wrapper, the WebAssembly core and Chart.js.
# Page JS and CSS are minified (source maps beside them); Chart.js is bundled
# with only the parts plot.js uses (web/vendor/chart.entry.js).
ESBUILD := node_modules/.bin/esbuild --log-level=warning
TERSER := $(CURDIR)/node_modules/.bin/terser
TERSER_FLAGS := --ecma 2020 --compress passes=2 --mangle
PAGE_SRC := $(BUILD)/page-src
# The models trained here: each folder of models/ with a checkpoint in it
# (tests/node/models.test.mjs checks them against web/app/models.js).
TRAINED_MODELS := $(patsubst models/%/config.json,%,$(wildcard models/*/config.json))
# The page's modules that import the wrapper (web/lib/poslab.js).
PAGE_ENTRIES := main.js page.js sweep_worker.js run_worker.js
CHECKPOINT_FILES := config.json model.safetensors vocab.json merges.txt
site: wasm wasm-nosimd
	rm -rf $(SITE) $(PAGE_SRC)
	mkdir -p $(SITE)/vendor $(PAGE_SRC)
	cp web/index.html $(SITE)/index.html
	# The icon inside the page: Chromium fetches a linked icon again after
	# every history.replaceState (each write of the address, up to five a
	# second while a student types), and an SVG one was parsed as a document
	# of its own on the page's thread, 6 to 9 ms at 2x throttling each time;
	# a data: PNG costs it a 0.2 ms decode and no fetch.
	sed -i "s#href=\"favicon.png\"#href=\"data:image/png;base64,$$(base64 -w0 web/favicon.png)\"#" $(SITE)/index.html
	grep -q 'rel="icon" href="data:image/png;base64,' $(SITE)/index.html
	cp web/package.json $(SITE)/
	# The page's modules as one file, and the sweep worker's as another; both
	# import the wrapper, poslab.js (with the Emscripten glue beside it), which
	# is also there on its own for scripts that import it (docs/interfaces.md).
	# index.html preloads it, and the chunks main.js imports (below), so the
	# page has no module graph to discover. The page's entry modules import
	# the wrapper from web/lib/; in the site it sits beside them.
	cp -R web/*.js web/app web/browser web/views web/teach web/lib $(PAGE_SRC)/
	cp $(BUILD)/wasm/poslab-core.js $(PAGE_SRC)/lib/
	for f in $(PAGE_ENTRIES); do \
	  grep -q "from './lib/poslab.js'" $(PAGE_SRC)/$$f && sed -i "s#from './lib/poslab.js'#from './poslab.js'#" $(PAGE_SRC)/$$f || exit 1; \
	done
	# Parts a student opens later (the tour, Copy as NumPy, the heatmaps, the
	# transformer's block-by-block view) are import()ed where they are first
	# needed: esbuild splits them into chunks/.
	$(ESBUILD) $(PAGE_SRC)/main.js --bundle --format=esm --external:./vendor/chart.min.js --external:./poslab.js \
	  --external:./why_panel.js --minify --sourcemap --target=es2022 --splitting \
	  --outdir=$(SITE) --chunk-names=chunks/[name]-[hash] --metafile=$(BUILD)/main.meta.json
	node web/dist/preload_chunks.mjs $(BUILD)/main.meta.json $(SITE)
	# The Why panel's code, loaded when the panel is first opened (with a lab
	# of its own).
	$(ESBUILD) $(PAGE_SRC)/why_panel.js --bundle --format=esm --external:./poslab.js \
	  --minify --sourcemap --target=es2022 --outfile=$(SITE)/why_panel.js
	# The workers: the head's chart, and the transformer's runs and chart.
	$(ESBUILD) $(PAGE_SRC)/sweep_worker.js --bundle --format=esm --external:./poslab.js \
	  --minify --sourcemap --target=es2022 --outfile=$(SITE)/sweep_worker.js
	$(ESBUILD) $(PAGE_SRC)/run_worker.js --bundle --format=esm --external:./poslab.js \
	  --minify --sourcemap --target=es2022 --outfile=$(SITE)/run_worker.js
	$(ESBUILD) web/lib/poslab.js --bundle --format=esm --external:./poslab-core.js --external:./poslab-checkpoint.js \
	  --minify --sourcemap --target=es2022 --outfile=$(SITE)/poslab.js
	# The wrapper's checkpoint code, which poslab.js imports with the first
	# checkpoint opened (it shares poslab.js, not a copy of it).
	$(ESBUILD) web/lib/checkpoints.js --bundle --format=esm --external:./poslab.js --external:./poslab-checkpoint.js \
	  --minify --sourcemap --target=es2022 --outfile=$(SITE)/checkpoints.js
	$(ESBUILD) $(BUILD)/wasm/poslab-core.js --minify --target=es2022 --outfile=$(SITE)/poslab-core.js
	$(ESBUILD) web/style.css --minify --sourcemap --outfile=$(SITE)/style.css
	$(ESBUILD) web/later.css --minify --sourcemap --outfile=$(SITE)/later.css
	# Chart.js is bundled by esbuild, then Terser drops the classes it
	# defines that nothing registers (its time, time-series and radial
	# scales and what only they use), which esbuild keeps. es2022, as the
	# page's own code: class static fields stay fields, which Terser can
	# drop; lowered for es2020 they become calls it must keep.
	$(ESBUILD) web/vendor/chart.entry.js --bundle --minify --format=iife --target=es2022 \
	  --legal-comments=eof --outfile=$(SITE)/vendor/chart.min.js
	$(TERSER) $(SITE)/vendor/chart.min.js $(TERSER_FLAGS) --comments some -o $(SITE)/vendor/chart.min.js
	cp node_modules/chart.js/LICENSE.md $(SITE)/vendor/chart.js-LICENSE.md
	cp $(BUILD)/wasm/poslab-core.wasm $(SITE)/poslab.wasm
	# The fallback's glue is the very same file (tests/node/nosimd.test.mjs checks).
	cp $(BUILD)/wasm-nosimd/poslab-core.wasm $(SITE)/poslab-nosimd.wasm
	# The checkpoint module and its glue, which poslab.js imports only when
	# a checkpoint is opened.
	$(ESBUILD) $(BUILD)/wasm/poslab-checkpoint.js --minify --target=es2022 --outfile=$(SITE)/poslab-checkpoint.js
	cp $(BUILD)/wasm/poslab-checkpoint.wasm $(SITE)/poslab-checkpoint.wasm
	# The models trained here, which the page fetches only when a student
	# picks one.
	for m in $(TRAINED_MODELS); do \
	  mkdir -p $(SITE)/models/$$m && \
	  cp $(addprefix models/$$m/,$(CHECKPOINT_FILES)) $(SITE)/models/$$m/ || exit 1; \
	done

serve: site native
	@echo "poslab: serving the lab at http://localhost:$(PORT)  (Ctrl-C stops)"
	cd $(SITE) && $(PYTHON) -m http.server $(PORT) --bind 127.0.0.1

# A self-contained folder for any static host, and in it poslab.html, the
# whole lab in one file that opens from disk (web/dist/single_file.mjs).
# make dist SITE_URL=https://example.org/poslab/ writes where it will be
# published into both pages: their Embed dialog then gives snippets that
# frame that address even when the page is opened from disk. DIST names
# another folder for it (a test builds one beside dist/).
SITE_URL ?=
DIST ?= dist
dist: site
	@case '$(SITE_URL)' in '') ;; http://*|https://*) ;; *) echo "poslab: SITE_URL must start with http:// or https://"; exit 2;; esac
	@case '$(SITE_URL)' in *[\"\'\<\>\|\ ]*) echo "poslab: SITE_URL must not hold quotes, <, >, | or spaces"; exit 2;; esac
	rm -rf $(DIST)
	cp -R $(SITE) $(DIST)
	node web/dist/single_file.mjs $(SITE) $(PAGE_SRC) $(DIST)/poslab.html
	[ -z '$(SITE_URL)' ] || sed -i 's|<head>|<head><meta name="poslab-site" content="$(SITE_URL)">|' $(DIST)/index.html $(DIST)/poslab.html
	@echo "poslab: $(DIST)/ holds the whole lab; serve it from any static host"

# The wrapper as an npm package (not published): build/package/, packed by
# npm pack into build/poslab-<version>.tgz. It holds the wrapper, the glue,
# both modules and the TypeScript declarations, not the page.
PACKAGE := $(BUILD)/package
package: site
	rm -rf $(PACKAGE) $(BUILD)/poslab-*.tgz
	mkdir -p $(PACKAGE)
	$(ESBUILD) web/lib/poslab.js --bundle --format=esm --external:./poslab-core.js --external:./poslab-checkpoint.js \
	  --target=es2022 --outfile=$(PACKAGE)/poslab.js
	$(ESBUILD) web/lib/checkpoints.js --bundle --format=esm --external:./poslab.js --external:./poslab-checkpoint.js \
	  --target=es2022 --outfile=$(PACKAGE)/checkpoints.js
	cp $(SITE)/poslab-core.js $(SITE)/poslab.wasm $(SITE)/poslab-nosimd.wasm web/lib/poslab.d.ts \
	  $(SITE)/poslab-checkpoint.js $(SITE)/poslab-checkpoint.wasm \
	  web/lib/package.json web/lib/README.md $(PACKAGE)/
	cd $(PACKAGE) && npm pack --pack-destination .. --silent

# The edit-test loop, a few minutes from a built tree: the native build and
# its tests but those labelled slow in CMakeLists.txt, the site, the Node
# tests but the slow ones below, and one page test in Chromium (the page
# opened within its byte budgets, and its parts loaded when first used).
SLOW_NODE_TESTS := $(addprefix tests/node/,bench_scripts checkpoint checkpoint_page memory numpy_checkpoint \
  numpy_script package sweep_steps threshold_steps tokenizer)
CHECK_NODE_TESTS := $(filter-out $(addsuffix .test.mjs,$(SLOW_NODE_TESTS)),$(wildcard tests/node/*.test.mjs))
check: deps-test native site
	cd $(BUILD)/native && ctest --output-on-failure -j2 -LE slow
	node --test --test-concurrency=2 $(CHECK_NODE_TESTS)
	node --test tests/browser/weight.test.mjs

# The full gate. dist/ is built once here; the browser tests that need it
# read it as it is. POSLAB_REQUIRE_TORCH makes models_vs_torch fail, not
# skip, where PyTorch is missing.
test: test-native test-fuzz test-wasm test-browser

test-native: deps-test native asan
	cd $(BUILD)/native && POSLAB_REQUIRE_TORCH=1 ctest --output-on-failure -j2
	cd $(BUILD)/asan && ctest --output-on-failure -j2

# Two Node test files at a time (Node's default on two cores is one): they
# check figures and steps, not the clock's pace; the browser tests do, and
# run one by one.
test-wasm: deps-test site native
	node --test --test-concurrency=2 tests/node/*.test.mjs

test-browser: deps-test dist native
	node --test --test-concurrency=1 tests/browser/*.test.mjs

# libFuzzer with ASan and UBSan over tests/fuzz/corpus; new inputs go to
# build/fuzz/corpus, crashes to build/fuzz/crashes (copy each into
# tests/fuzz/regressions once fixed). make fuzz FUZZ_SECONDS=3600
FUZZ_SECONDS ?= 600
fuzz: deps-test
	CC=clang cmake -S . -B $(BUILD)/fuzz -DCMAKE_BUILD_TYPE=Debug -DPOSLAB_FUZZ=ON
	cmake --build $(BUILD)/fuzz -j2 --target fuzz_poslab
	mkdir -p $(BUILD)/fuzz/corpus $(BUILD)/fuzz/crashes
	$(BUILD)/fuzz/fuzz_poslab -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	  -dict=tests/fuzz/poslab.dict -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/crashes/ $(BUILD)/fuzz/corpus tests/fuzz/corpus

# The tokenizer's target (tests/fuzz/fuzz_tokenizer.c) the same way, over
# tests/fuzz/tokenizer_corpus; new inputs go to build/fuzz/tokenizer_corpus.
fuzz-tokenizer: deps-test
	CC=clang cmake -S . -B $(BUILD)/fuzz -DCMAKE_BUILD_TYPE=Debug -DPOSLAB_FUZZ=ON
	cmake --build $(BUILD)/fuzz -j2 --target fuzz_tokenizer
	mkdir -p $(BUILD)/fuzz/tokenizer_corpus $(BUILD)/fuzz/crashes
	$(BUILD)/fuzz/fuzz_tokenizer -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	  -dict=tests/fuzz/tokenizer.dict -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/crashes/ \
	  $(BUILD)/fuzz/tokenizer_corpus tests/fuzz/tokenizer_corpus

# The safetensors reader's target (tests/fuzz/fuzz_safetensors.c): whole
# files for a tiny config.json, over tests/fuzz/safetensors_corpus.
fuzz-safetensors: deps-test
	CC=clang cmake -S . -B $(BUILD)/fuzz -DCMAKE_BUILD_TYPE=Debug -DPOSLAB_FUZZ=ON
	cmake --build $(BUILD)/fuzz -j2 --target fuzz_safetensors
	mkdir -p $(BUILD)/fuzz/safetensors_corpus $(BUILD)/fuzz/crashes
	$(BUILD)/fuzz/fuzz_safetensors -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
	  -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/crashes/ $(BUILD)/fuzz/safetensors_corpus \
	  tests/fuzz/safetensors_corpus

# make test's short pass of all three.
test-fuzz:
	$(MAKE) fuzz FUZZ_SECONDS=30
	$(MAKE) fuzz-tokenizer FUZZ_SECONDS=20
	$(MAKE) fuzz-safetensors FUZZ_SECONDS=20

# Rewrites tests/fixtures/cases.json from NumPy.
fixtures:
	$(PYTHON) tests/reference.py

# The three models trained here (models/gpt, nope, bag): trains them with
# Debian's PyTorch (only this target installs it; make serve and make test read
# the committed checkpoints with the core alone), checks PyTorch's outputs
# against the core's, then writes the core's table into docs/models.md.
models: native
	$(call apt_install,python3-torch)
	$(PYTHON) models/train.py models
	$(PYTHON) tests/test_models_torch.py $(BUILD)/native/poslab
	$(PYTHON) tests/test_models.py $(BUILD)/native/poslab --write

# Benchmarks (not part of `make test`): native core, WebAssembly under Node,
# NumPy and plain JavaScript side by side, the page in Chromium and
# Lighthouse's scores; writes docs/benchmarks.md.
bench: native site
	$(call apt_install,python3-numpy)
	bash tests/bench/run.sh

clean:
	rm -rf $(BUILD) dist
