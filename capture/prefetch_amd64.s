#include "textflag.h"

// func prefetchLines(p unsafe.Pointer, n uintptr)
TEXT ·prefetchLines(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ	p+0(FP), AX
	MOVQ	n+8(FP), CX
	TESTQ	CX, CX
	JEQ	done
loop:
	PREFETCHT0	(AX)
	ADDQ	$64, AX
	SUBQ	$64, CX
	JHI	loop
done:
	RET
