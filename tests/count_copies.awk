# count_copies.awk - the copies of an HLO module counted from its text alone,
# independently of the parser (tests/copy_count.sh): prints
#   copy N fused N async N
# copy: `copy` instructions; fused: fusion outputs whose fused computation's
# root (or root tuple element) is a copy of a parameter through bitcasts;
# async: copy-start instructions. Each only in computations not reached
# through a fusion or another embedded call (reduce, map, sort, scatter,
# all-reduce, custom-call ...: to_apply everywhere but call).

function depth(s,   t, o, c) {
	t = s; o = gsub(/[({[]/, "", t)
	t = s; c = gsub(/[)}\]]/, "", t)
	return o - c
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function bare(s) { s = trim(s); n = split(s, w, /[ \t]+/); s = w[n]; sub(/^%/, "", s); return s }

# one statement: a computation header, its closing brace, or an instruction
function statement(s,   name, rest, shape, i, d, c, op, args, attrs, k, parts, np, cur, j) {
	s = trim(s)
	if (s == "" || s ~ /^\/\//)
		return
	if (s ~ /^HloModule/)
		return
	if (s == "}") { comp = ""; return }
	if (s ~ /\{$/ && s !~ / = /) {
		sub(/^ENTRY[ \t]+/, "", s)
		split(s, w, /[ \t(]+/)
		comp = w[1]; sub(/^%/, "", comp)
		ncomp++; comps[ncomp] = comp
		return
	}
	if (comp == "" || s !~ / = /)
		return
	isroot = 0
	if (s ~ /^ROOT[ \t]/) { isroot = 1; sub(/^ROOT[ \t]+/, "", s) }
	i = index(s, " = ")
	name = substr(s, 1, i - 1); sub(/^%/, "", name); name = trim(name)
	rest = substr(s, i + 3)
	# skip the shape: a balanced (...) tuple or one token
	if (substr(rest, 1, 1) == "(") {
		d = 0
		for (j = 1; j <= length(rest); j++) {
			c = substr(rest, j, 1)
			if (c == "(") d++
			else if (c == ")") { d--; if (d == 0) break }
		}
		rest = substr(rest, j + 1)
	} else {
		sub(/^[^ ]+/, "", rest)
	}
	rest = trim(rest)
	j = index(rest, "(")
	if (j == 0)
		return
	op = substr(rest, 1, j - 1)
	# the operand list: up to the matching parenthesis
	d = 0
	for (k = j; k <= length(rest); k++) {
		c = substr(rest, k, 1)
		if (c == "(" || c == "{" || c == "[") d++
		else if (c == ")" || c == "}" || c == "]") { d--; if (d == 0) break }
	}
	args = substr(rest, j + 1, k - j - 1)
	attrs = substr(rest, k + 1)
	key = comp SUBSEP name
	opc[key] = op
	ncur = 0; cur = ""; d = 0
	for (k = 1; k <= length(args); k++) {
		c = substr(args, k, 1)
		if (c == "(" || c == "{" || c == "[") d++
		else if (c == ")" || c == "}" || c == "]") d--
		if (c == "," && d == 0) { ncur++; opnd[key, ncur] = bare(cur); cur = "" }
		else cur = cur c
	}
	if (trim(cur) != "") { ncur++; opnd[key, ncur] = bare(cur) }
	nopnd[key] = ncur
	if (isroot) root[comp] = name
	ninstr++; icomp[ninstr] = comp; iname[ninstr] = name
	# calls: fusion's calls= and to_apply= (but call's) are embedded
	callee_attr(attrs, "calls", op == "fusion")
	callee_attr(attrs, "to_apply", op != "call")
	callee_attr(attrs, "condition", 0)
	callee_attr(attrs, "body", 0)
	callee_attr(attrs, "true_computation", 0)
	callee_attr(attrs, "false_computation", 0)
	callee_list(attrs, "branch_computations", 0)
	callee_list(attrs, "called_computations", op != "async-start")
	if (op == "fusion" && match(attrs, /calls=%?[^ ,}]+/)) {
		t = substr(attrs, RSTART + 6, RLENGTH - 6); sub(/^%/, "", t)
		fcall[key] = t
	}
}
function callee_attr(attrs, a,  emb,   t) {
	if (match(attrs, a "=%?[^ ,}]+")) {
		t = substr(attrs, RSTART + length(a) + 1, RLENGTH - length(a) - 1); sub(/^%/, "", t)
		nedge++; efrom[nedge] = comp; eto[nedge] = t; eemb[nedge] = emb
	}
}
function callee_list(attrs, a, emb,   t, n, i, parts) {
	if (match(attrs, a "=\\{[^}]*\\}")) {
		t = substr(attrs, RSTART + length(a) + 2, RLENGTH - length(a) - 3)
		n = split(t, parts, /,/)
		for (i = 1; i <= n; i++) {
			t = trim(parts[i]); sub(/^%/, "", t)
			nedge++; efrom[nedge] = comp; eto[nedge] = t; eemb[nedge] = emb
		}
	}
}
# the instruction a fused root element copies a parameter with, or ""
function through_bitcasts(k, x) {
	while (opc[k, x] == "bitcast" && nopnd[k SUBSEP x] == 1)
		x = opnd[k, x, 1]
	return x
}
function fused_copy(k, x,   c, p) {
	c = through_bitcasts(k, x)
	if (opc[k, c] != "copy" || nopnd[k SUBSEP c] != 1)
		return 0
	p = through_bitcasts(k, opnd[k, c, 1])
	return opc[k, p] == "parameter"
}

{
	line = $0
	gsub(/"[^"]*"/, "\"\"", line)
	sub(/\/\/.*$/, "", line)
	if (pending != "") {
		pending = pending " " trim(line)
	} else {
		pending = line
	}
	t = trim(pending)
	d = depth(t)
	if (t ~ /^HloModule/ && d > 0)
		next
	if (t ~ /\{$/ && t !~ / = / && d == 1) { statement(pending); pending = ""; next }
	if (d > 0)
		next
	statement(pending); pending = ""
}

END {
	if (pending != "")
		statement(pending)
	# embedded: a callee of an embedded call, and everything below one
	for (changed = 1; changed;) {
		changed = 0
		for (e = 1; e <= nedge; e++)
			if ((eemb[e] || emb[efrom[e]]) && !emb[eto[e]]) { emb[eto[e]] = 1; changed = 1 }
	}
	nc = nf = na = 0
	for (i = 1; i <= ninstr; i++) {
		k = icomp[i]; x = iname[i]
		if (emb[k])
			continue
		o = opc[k, x]
		if (o == "copy" && nopnd[k SUBSEP x] == 1)
			nc++
		else if (o == "copy-start" && nopnd[k SUBSEP x] == 1)
			na++
		else if (o == "fusion" && (k SUBSEP x) in fcall) {
			f = fcall[k SUBSEP x]; r = root[f]
			if (r == "")
				continue
			if (opc[f, r] == "tuple") {
				for (j = 1; j <= nopnd[f SUBSEP r]; j++)
					nf += fused_copy(f, opnd[f, r, j])
			} else {
				nf += fused_copy(f, r)
			}
		}
	}
	printf "copy %d fused %d async %d\n", nc, nf, na
}
