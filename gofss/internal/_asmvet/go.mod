module github.com/pyfss/pyfss/gofss/internal/asmvet

go 1.24
