#include "textflag.h"

// func prefetchLines(p unsafe.Pointer, n uintptr)
TEXT ·prefetchLines(SB), NOSPLIT|NOFRAME, $0-16
	MOVD	p+0(FP), R0
	MOVD	n+8(FP), R1
	CMP	$64, R1
	BLS	last
pairs:
	// Two lines a round.
	PRFM	(R0), PLDL1KEEP
	PRFM	64(R0), PLDL1KEEP
	ADD	$128, R0
	SUBS	$128, R1
	BHI	pairs
	RET
last:
	CBZ	R1, done
	PRFM	(R0), PLDL1KEEP
done:
	RET
