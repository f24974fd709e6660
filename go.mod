module github.com/pyfss/pyfss

go 1.24

require (
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
