#!/usr/bin/perl
# add-edges.pl [--strip NAME] FILE A B [A B ...]: FILE's HLO text with the
# control edge A -> B added to instruction B (control-predecessors={%A},
# merged with the ones it has), on stdout. --strip NAME first drops the
# control edges into and out of NAME (and of the copy-done of a copy-start
# NAME): a copy whose removal the edges are to repair loses them with it
# (docs/hazards.md 4). Independent of hloproof's own rewrite (tests/repairs.sh):
# it edits the text. Where an edge runs against the printed order, the
# computation's instructions are put in an order where each follows every
# instruction it names (the earliest printed first among the ready ones).
# Exit 1 when a name is not found or the edges close a cycle.
use strict;
use warnings;

my @strip;
while (@ARGV && $ARGV[0] eq '--strip') {
	shift @ARGV;
	push @strip, shift @ARGV;
}
my ($file, @pairs) = @ARGV;
open(my $fh, '<', $file) or die "$file: $!\n";
my @lines = <$fh>;
close($fh);

# computations: header line, instructions (each a list of text lines), closing line
my @out;        # pieces in order: plain text, or a computation
my $cur;        # the computation being read
my $NAME = qr/[A-Za-z_][\w.\-]*/;
for my $l (@lines) {
	if (!$cur) {
		if ($l =~ /^\s*(ENTRY\s+)?%?$NAME\s*[\(\{].*\{\s*$/ || $l =~ /^\s*(ENTRY\s+)?%?$NAME\s*\{\s*$/) {
			$cur = {head => $l, ins => []};
			push @out, $cur;
		} else {
			push @out, $l;
		}
		next;
	}
	if ($l =~ /^\s*\}/) {
		$cur->{tail} = $l;
		$cur = undef;
		next;
	}
	if ($l =~ /^\s*(?:ROOT\s+)?%?($NAME)\s*=/) {
		push @{$cur->{ins}}, {name => $1, text => $l};
	} elsif (@{$cur->{ins}}) {
		$cur->{ins}[-1]{text} .= $l; # a wrapped line
	} else {
		$cur->{head} .= $l;
	}
}


my %touched;
for my $x (@strip) {
	for my $c (grep { ref } @out) {
		my ($ix) = grep { $_->{name} eq $x } @{$c->{ins}};
		next if !$ix;
		my @names = ($x);
		# a copy-start's copy-done goes with it
		push @names, map { $_->{name} } grep { $_->{text} =~ /copy-done\(.*%?\Q$x\E\)/ } @{$c->{ins}};
		for my $i (@{$c->{ins}}) {
			next if $i->{text} !~ /control-predecessors=\{([^}]*)\}/;
			my @kept = grep { my $n = $_; $n =~ s/^%//; !grep { $_ eq $n } @names } split /\s*,\s*/, $1;
			@kept = () if grep { $i->{name} eq $_ } @names;
			if (@kept) {
				my $k = join(', ', @kept);
				$i->{text} =~ s/control-predecessors=\{[^}]*\}/control-predecessors={$k}/;
			} else {
				$i->{text} =~ s/,\s*control-predecessors=\{[^}]*\}//;
			}
		}
		$touched{$c} = $c;
	}
}
while (@pairs) {
	my ($a, $b) = splice(@pairs, 0, 2);
	# the computation that has both (names may repeat across computations)
	my ($wb, $ins);
	for my $c (grep { ref } @out) {
		my ($ia) = grep { $_->{name} eq $a } @{$c->{ins}};
		my ($ib) = grep { $_->{name} eq $b } @{$c->{ins}};
		if ($ia && $ib) { $wb = [$c, $ib]; $ins = $ib; last }
	}
	if (!$wb) { print STDERR "no computation has both $a and $b\n"; exit 1 }
	my $pct = $ins->{text} =~ /^\s*(?:ROOT\s+)?%/ ? '%' : '';
	if ($ins->{text} =~ /control-predecessors=\{([^}]*)\}/) {
		my $have = $1;
		next if $have =~ /(^|[\s,%])\Q$a\E(\s|,|$)/;
		my $new = $have =~ /\S/ ? "$have, $pct$a" : "$pct$a";
		$ins->{text} =~ s/control-predecessors=\{[^}]*\}/control-predecessors={$new}/;
	} else {
		$ins->{text} =~ s/\s*$//;
		$ins->{text} .= ", control-predecessors={$pct$a}\n";
	}
	$touched{$wb->[0]} = $wb->[0];
}

# order each touched computation by the names its instructions mention
# (the %-names only, when the module writes them with %)
my $pctmod = grep { ref $_ && @{$_->{ins}} && $_->{ins}[0]{text} =~ /^\s*(?:ROOT\s+)?%/ } @out;
for my $c (values %touched) {
	my @ins = @{$c->{ins}};
	my %idx;
	$idx{$ins[$_]{name}} = $_ for 0 .. $#ins;
	my @deps;
	for my $i (0 .. $#ins) {
		my $t = $ins[$i]{text};
		$t =~ s/^\s*(?:ROOT\s+)?%?$NAME\s*=//;
		$t =~ s/metadata=\{[^}]*\}//g;
		my %d;
		# bare names: not an opcode (followed by '('), an attribute ('=')
		# or a type ('[')
		my $ref = $pctmod ? qr/%($NAME)/ : qr/(?<![\w.\-])($NAME)(?![\w.\-]*\s*[(=\[])/;
		while ($t =~ /$ref/g) {
			my $j = $idx{$1};
			$d{$j} = 1 if defined $j && $j != $i;
		}
		$deps[$i] = [keys %d];
	}
	my (@placed, @order);
	while (@order < @ins) {
		my $pick;
		for my $i (0 .. $#ins) {
			next if $placed[$i];
			if (!grep { !$placed[$_] } @{$deps[$i]}) { $pick = $i; last }
		}
		if (!defined $pick) { print STDERR "the edges close a cycle\n"; exit 1 }
		$placed[$pick] = 1;
		push @order, $ins[$pick];
	}
	$c->{ins} = \@order;
}

for my $p (@out) {
	if (!ref $p) { print $p; next }
	print $p->{head};
	print $_->{text} for @{$p->{ins}};
	print $p->{tail} // '';
}
