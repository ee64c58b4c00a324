#!/usr/bin/perl
# repairs.pl HLOPROOF FILE...: every repair hloproof claims on FILE (check's
# aliasing-hazard, schedule-dependent-copy and donation-copied findings,
# explain --all's copy edges, explain --hazards' "avoided by" edges, donation's
# schedule-dependent verdicts) re-checked the way a user would: the edges
# added to the module text by tests/add-edges.pl (not by hloproof), the
# result given to hloproof again, and the claim's hazards looked for there
# (docs/verdicts.md, Repairs). Prints one line per refuted claim and the
# counts; exit 1 when any claim does not hold.
use strict;
use warnings;
use File::Temp qw(tempdir);
use File::Basename qw(dirname);

my ($H, @files) = @ARGV;
open(STDERR, ">", "/dev/null"); # the tools' own messages: only the claims matter here
my $dir = dirname($0);
my $T = tempdir(CLEANUP => 1);
my ($claims, $held, $refuted) = (0, 0, 0);
my %by_kind;

sub run {
	my @cmd = @_;
	open(my $p, '-|', @cmd) or die "@cmd: $!";
	local $/;
	my $o = <$p> // '';
	close($p);
	return $o;
}

# the edited module; undef when the edit itself fails (a cycle: no repair)
# FILE with the edges added; strip: a copy whose removal they repair, its
# control edges dropped first (they go with it, docs/hazards.md 4)
sub edited {
	my ($f, $strip, @edges) = @_;
	my $out = "$T/edited.hlo";
	my $s = defined $strip ? "--strip '$strip' " : '';
	my $rc = system("perl $dir/add-edges.pl $s'$f' " . join(' ', map { "'$_->[0]' '$_->[1]'" } @edges) .
		     " > '$out' 2>/dev/null");
	return $rc == 0 ? $out : undef;
}

sub edges_of {
	my ($s) = @_;
	return map { [split /\s*->\s*/] } split /\s*,\s*/, $s;
}

# the value a hazard witness is about, and its class (0: a read of it; else static)
sub hazard_value {
	my ($w) = @_;
	return ($1, 1) if $w =~ /^read-only value (\S+) \(\S+ \S+\) shares its buffer/;
	return ($1, 2) if $w =~ /^read-only value (\S+) .*is an entry output/;
	return ($1, 3) if $w =~ /^one buffer \(holding (\S+)\)/;
	return ($1, 0) if $w =~ /^(\S+) and \S+ are defined into one buffer at once/;
	return ($1, 0) if $w =~ /^\S+ reads (\S+) \(defined at/;
	return ($1, 0) if $w =~ /^\S+ \(defined at .*?\) overwrites (\S+) \(defined at/;
	return;
}

# explain --hazards: [kind, witness, in some schedule]
sub hazards_of {
	my ($f) = @_;
	my @h;
	for (split /\n/, run($H, 'explain', '--hazards', $f)) {
		push @h, [$1, $2, 0] if /^hazard (\S+): (.*)$/;
		$h[-1][2] = $1 eq 'yes' if @h && /in some schedule: (yes|no)/;
	}
	return @h;
}

sub core { my ($w) = @_; $w =~ s/; .*//; return $w }

sub verdict {
	my ($f, $what, $ok, $why) = @_;
	$claims++;
	$by_kind{$what}++;
	if ($ok) { $held++; return }
	$refuted++;
	print "refuted: $f: $what: $why\n";
}

sub check_claim {
	my ($f, $kind, $edges, $key) = @_;
	my $copy = $kind eq 'schedule-dependent-copy' || $kind eq 'explain copy';
	my $e = edited($f, $copy ? $key : undef, @$edges);
	my $desc = join(', ', map { "$_->[0] -> $_->[1]" } @$edges);
	if (!$e) { verdict($f, $kind, 0, "$desc: the edit failed (a cycle?)"); return }
	if ($kind eq 'aliasing-hazard') {
		my ($v, $cl) = @$key;
		my @left = grep { $_->[2] && do { my ($x, $y) = hazard_value($_->[1]); defined $x && $x eq $v && $y == $cl } } hazards_of($e);
		verdict($f, $kind, !@left, "$desc leaves " . scalar(@left) . " hazard(s) on $v, e.g. $left[0][1]") if @left;
		verdict($f, $kind, 1, '') if !@left;
	} elsif ($kind eq 'explain hazard') {
		my ($k, $w) = @$key;
		my @left = grep { $_->[2] && $_->[0] eq $k && core($_->[1]) eq core($w) } hazards_of($e);
		verdict($f, $kind, !@left, "$desc leaves $k: $w");
	} elsif ($kind eq 'schedule-dependent-copy' || $kind eq 'explain copy') {
		my $o = run($H, 'explain', $e, $key);
		verdict($f, $kind, scalar($o =~ /^  verdict\.any: removable$/m), "$desc: copy $key is not removable then");
	} elsif ($kind eq 'donation-copied') {
		my $o = run($H, 'donation', $e);
		verdict($f, $kind, scalar($o =~ /^param \Q$key\E \{[^}]*\} .* any=safe/m), "$desc: donation of param $key is not safe then");
	} else {
		my $o = run($H, 'donation', $e);
		verdict($f, $kind, scalar($o =~ /^param \Q$key\E .* any=safe/m), "$desc: donation of param $key is not safe then");
	}
}

# --claim FILE KIND "A -> B, ..." KEY: one claim given on the command line
# (tests/repairs.sh checks that a false one is refuted)
if (@files && $files[0] eq '--claim') {
	my (undef, $f, $kind, $e, @key) = @files;
	check_claim($f, $kind, [edges_of($e)], $kind eq 'aliasing-hazard' ? [@key] : @key > 1 ? [@key] : $key[0]);
	@files = ();
}

for my $f (@files) {
	my @claims; # [kind, edges, key]
	# the headline names the claim; since the headlines are plain words, the
	# edges and the hazard are on the evidence lines under it
	my ($pend, $pedge);
	for (split /\n/, run($H, 'check', $f)) {
		if (/: (?:warning|error|note): (.*) \[HP\d+ aliasing-hazard\]/) {
			my $m = $1;
			($pend, $pedge) = (undef, undef);
			my ($v, $cl) = hazard_value($m);
			if (defined $v && ($m =~ /the control edge (\S+ -> \S+) avoids it/ || $m =~ /the control edges (.*?) together avoid it/)) {
				push @claims, ['aliasing-hazard', [edges_of($1)], [$v, $cl]];
			} elsif ($m =~ /; read it first$/) {
				# the repair the headline claims: the edge is on an evidence line
				($pend, $pedge) = ('aliasing-hazard', undef);
			}
		} elsif (/: \w+: copy (\S+) .* with the control edges? (.*) it can be removed \[HP\d+ schedule-dependent-copy\]/) {
			push @claims, ['schedule-dependent-copy', [edges_of($2)], $1];
			($pend, $pedge) = (undef, undef);
		} elsif (/: \w+: copy (\S+) \(.*\[HP\d+ schedule-dependent-copy\]/) {
			($pend, $pedge) = ('schedule-dependent-copy', $1);
		} elsif (/: \w+: .*donation of param (\d+) .* the control edges? (.*?) (?:together avoid|avoids) the copy .*\[HP\d+ donation-copied\]/) {
			push @claims, ['donation-copied', [edges_of($2)], $1];
			($pend, $pedge) = (undef, undef);
		} elsif (/: \w+: donat(?:ed|ing) .*\[HP\d+ donation-copied\]/) {
			($pend, $pedge) = ('donation-copied', undef);
		} elsif (/^\S/) {
			($pend, $pedge) = (undef, undef);
		} elsif (defined $pend && $pend eq 'aliasing-hazard' && !defined $pedge &&
			 /^    the control edge (\S+ -> \S+) avoids it \(checked/) {
			$pedge = $1;
		} elsif (defined $pend && $pend eq 'aliasing-hazard' && defined $pedge &&
			 /^    (?:overwrite|same-time|same-instruction|read-only-written|read-only-output|outputs-not-distinct): (.*)$/) {
			my ($v, $cl) = hazard_value($1);
			push @claims, ['aliasing-hazard', [edges_of($pedge)], [$v, $cl]] if defined $v;
			($pend, $pedge) = (undef, undef);
		} elsif (defined $pend && $pend eq 'donation-copied' &&
			 /^    (?:input_output_alias: output \{[^}]*\} is written into|buffer_donor:) param (\d+) /) {
			# the donated parameter, after the edge line
			push @claims, ['donation-copied', [edges_of($pedge)], $1] if defined $pedge;
			($pend, $pedge) = (undef, undef);
		} elsif (defined $pend && $pend eq 'schedule-dependent-copy' &&
			 /^    repair: control edges? (.*?) \(in \S+\) rules out/) {
			push @claims, ['schedule-dependent-copy', [edges_of($1)], $pedge];
			($pend, $pedge) = (undef, undef);
		} elsif (defined $pend && $pend eq 'donation-copied' &&
			 /the control edges? (.*?) (?:together avoid|avoids) the copy/) {
			$pedge = $1;
		}
	}
	my $copy;
	for (split /\n/, run($H, 'explain', '--all', $f)) {
		$copy = $1 if /^(\S+) \(.*computation .*\): family/;
		push @claims, ['explain copy', [edges_of($1)], $copy]
			if /^  control edges? (?:\(all needed\))?: ?(.*)$/ && defined $copy;
	}
	my $hz;
	for (split /\n/, run($H, 'explain', '--hazards', $f)) {
		$hz = [$1, $2] if /^hazard (\S+): (.*)$/;
		push @claims, ['explain hazard', [edges_of($1)], $hz] if /^  avoided by: control edge (\S+ -> \S+)$/;
	}
	for (split /\n/, run($H, 'donation', $f)) {
		push @claims, ['donation', [edges_of($2)], $1]
			if /^param (\d+ \{[^}]*\}) .* any=schedule-dependent \(safe with (.*?)\)(?:;|$)/;
	}
	check_claim($f, @$_) for @claims;
}
my $kinds = join(', ', map { "$_ $by_kind{$_}" } sort keys %by_kind);
print "repairs: $claims claim(s) re-checked ($kinds): $held hold, $refuted refuted\n";
exit($refuted ? 1 : 0);
