module github.com/pyfss/pyfss/gofss/internal/simd/_asm

go 1.24

require github.com/mmcloughlin/avo v0.5.0

require (
	github.com/pyfss/pyfss/gofss/internal/asmvet v0.0.0
	golang.org/x/mod v0.6.0 // indirect
	golang.org/x/sys v0.1.0 // indirect
	golang.org/x/tools v0.2.0 // indirect
)

replace github.com/pyfss/pyfss/gofss/internal/asmvet => ../../_asmvet
