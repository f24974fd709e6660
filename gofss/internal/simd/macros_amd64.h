// Macros shared by the routines. Blocks sit 4 to a zmm register, one per 128-bit lane;
// the group arithmetic reads the Arith masks from Z29 (From), Z28 (Xor), Z27 (Mask)
// and Z26 (Neg), as LOADARITH puts them.

// TMASK sets every bit of each lane of T to the control bit of that lane of B.
#define TMASK(B, T) \
	VPSHUFD $0xff, B, T; \
	VPSLLD  $31, T, T;   \
	VPSRAD  $31, T, T

// LANETEST sets bits 0, 2, 4 and 6 of AX to whether lane 0-3 of X has a bit of M set
// in either qword (the odd bits are left as they come); K and R are scratch.
#define LANETEST(M, X, K, R) \
	VPTESTMQ M, X, K; \
	KMOVW    K, AX;   \
	MOVL     AX, R;   \
	SHRL     $1, R;   \
	ORL      R, AX

#define LOADARITH(G) \
	VBROADCASTI32X4 0(G), Z29;  \
	VBROADCASTI32X4 16(G), Z28; \
	VBROADCASTI32X4 32(G), Z27; \
	VBROADCASTI32X4 48(G), Z26

// GADD sets T to X + Y in the group (X is clobbered): X ^ Y where Xor is set, else
// the qword sums; GSUB to X - Y.
#define GADD(Y, X, T) \
	VPXORQ     Y, X, T; \
	VPADDQ     Y, X, X; \
	VPTERNLOGQ $0xe2, X, Z28, T

#define GSUB(Y, X, T) \
	VPXORQ     Y, X, T; \
	VPSUBQ     Y, X, X; \
	VPTERNLOGQ $0xe2, X, Z28, T
