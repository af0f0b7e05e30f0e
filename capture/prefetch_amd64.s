#include "textflag.h"

// func prefetchLines(p unsafe.Pointer, n uintptr)
TEXT ·prefetchLines(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ	p+0(FP), AX
	MOVQ	n+8(FP), CX
	CMPQ	CX, $64
	JLS	last
pairs:
	// Two lines a round.
	PREFETCHT0	(AX)
	PREFETCHT0	64(AX)
	ADDQ	$128, AX
	SUBQ	$128, CX
	JHI	pairs
	RET
last:
	TESTQ	CX, CX
	JEQ	done
	PREFETCHT0	(AX)
done:
	RET
