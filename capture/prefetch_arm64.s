#include "textflag.h"

// func prefetchLines(p unsafe.Pointer, n uintptr)
TEXT ·prefetchLines(SB), NOSPLIT|NOFRAME, $0-16
	MOVD	p+0(FP), R0
	MOVD	n+8(FP), R1
	CBZ	R1, done
loop:
	PRFM	(R0), PLDL1KEEP
	ADD	$64, R0
	SUBS	$64, R1
	BHI	loop
done:
	RET
