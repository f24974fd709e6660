package binding

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every function gopy binds returns a value (one without results runs as a detached
// goroutine, past the caller's borrowed memory) and never a bare error (whose message
// string gopy leaks on every call: KeyGen once leaked about 26 bytes a call).
func TestBoundFunctionsReturnValues(t *testing.T) {
	files, err := os.ReadDir(".")
	require.NoError(t, err)
	fset, checked := token.NewFileSet(), 0
	for _, f := range files {
		name := f.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() {
				continue
			}
			checked++
			var results []ast.Expr
			if fn.Type.Results != nil {
				for _, r := range fn.Type.Results.List {
					for range max(1, len(r.Names)) {
						results = append(results, r.Type)
					}
				}
			}
			where := fset.Position(fn.Pos()).String() + ": " + fn.Name.Name
			if assert.NotEmpty(t, results, "%s returns nothing", where) && len(results) == 1 {
				id, ok := results[0].(*ast.Ident)
				assert.False(t, ok && id.Name == "error", "%s returns a bare error", where)
			}
		}
	}
	assert.Greater(t, checked, 20, "the bound functions were found")
}
