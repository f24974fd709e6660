module github.com/pyfss/pyfss

go 1.26.0

require (
	github.com/go-python/gopy v0.4.10
	github.com/stretchr/testify v1.12.1
	github.com/zeebo/blake3 v0.2.4
	golang.org/x/sys v0.50.0
)

require (
	github.com/klauspost/cpuid/v2 v2.0.12 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
