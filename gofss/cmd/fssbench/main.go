// Command fssbench measures the tree walks of package gofss and prints one JSON object
// per line: {"op","scheme","prg","backend","impl","group","in_bits","threads",
// "ns_per_item","samples","items"}. Ops are eval_all (one key, items = 2^in_bits outputs), eval (-keys keys,
// one point each), gen (-keys keys) and prg, the scheme's PRG alone (Expand on
// 1024 seeds, a level of an EvalAll tile; items = seeds), the floor of eval_all,
// which expands one seed an output. Backends are the fastest this CPU runs and the
// portable one ("generic"), chosen with the PRG packages' SetBackend; the schemes are
// made after it, so their tree walks ("impl") follow the PRG's choice. Each figure
// (ns_per_item) is the median of -reps timings (samples, ns per item each), each a
// loop of at least -min.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pyfss/pyfss/gofss"
	"github.com/pyfss/pyfss/gofss/internal/aes128"
	"github.com/pyfss/pyfss/gofss/internal/chacha"
)

type record struct {
	Op        string    `json:"op"`
	Scheme    string    `json:"scheme"`
	Prg       string    `json:"prg"`
	Backend   string    `json:"backend"`
	Impl      string    `json:"impl"`
	Group     string    `json:"group"`
	InBits    int       `json:"in_bits"`
	Threads   int       `json:"threads"`
	NsPerItem float64   `json:"ns_per_item"`
	Samples   []float64 `json:"samples"`
	Items     int       `json:"items"`
}

var (
	bitsFlag     = flag.String("bits", "20", "input widths, comma-separated (e.g. 8,12,16,20,24 for a sweep)")
	threadsFlag  = flag.String("threads", "1", "GOMAXPROCS values, comma-separated")
	keysFlag     = flag.Int("keys", 1<<16, "keys per eval and gen call")
	opsFlag      = flag.String("ops", "eval_all,eval,gen", "ops to measure")
	schemesFlag  = flag.String("schemes", "dpf,dcf", "schemes to measure")
	prgsFlag     = flag.String("prgs", "chacha,aes128_mmo", "PRGs to measure")
	backendsFlag = flag.String("backends", "fastest,generic", "backends to measure")
	groupsFlag   = flag.String("groups", "bytes,uint64", "output groups to measure")
	minFlag      = flag.Duration("min", 200*time.Millisecond, "least duration of one timing")
	repsFlag     = flag.Int("reps", 3, "timings per figure; their median is reported")
)

func main() {
	flag.Parse()
	enc := json.NewEncoder(os.Stdout)
	for _, threads := range ints(*threadsFlag) {
		runtime.GOMAXPROCS(threads)
		for _, bits := range ints(*bitsFlag) {
			for _, sch := range list(*schemesFlag) {
				for _, prgName := range list(*prgsFlag) {
					for _, be := range list(*backendsFlag) {
						backend := setBackend(prgName, be)
						for _, g := range list(*groupsFlag) {
							s, prg := newScheme(sch, prgName, g, bits)
							for _, op := range list(*opsFlag) {
								samples, items := measure(s, prg, op, bits)
								check(enc.Encode(record{op, sch, prgName, backend, s.Impl(), g, bits, threads, median(samples), samples, items}))
							}
						}
					}
				}
			}
		}
	}
}

// setBackend selects the fastest or the portable implementation of a PRG and
// returns its name.
func setBackend(prg, which string) string {
	names, set := chacha.Backends(), chacha.SetBackend
	if prg == "aes128_mmo" {
		names, set = aes128.Backends(), aes128.SetBackend
	}
	name := names[0]
	if which == "generic" {
		name = "generic"
	}
	_, err := set(name)
	check(err)
	return name
}

func newScheme(kind, prgName, group string, bits int) (gofss.Scheme, gofss.Prg) {
	mul := 2
	if kind == "dcf" {
		mul = 4
	}
	var prg gofss.Prg
	var err error
	if prgName == "chacha" {
		prg, err = gofss.NewChaCha(mul, gofss.DefaultNonce)
	} else {
		prg, err = gofss.NewAesMmo(gofss.DefaultAesKeys[:mul])
	}
	check(err)
	g, err := gofss.ParseGroup(group)
	check(err)
	if kind == "dpf" {
		d, err := gofss.NewDpf(bits, g, prg)
		check(err)
		return d, prg
	}
	d, err := gofss.NewDcf(bits, g, prg, gofss.Lt)
	check(err)
	return d, prg
}

// measure times op of s (made with prg) -reps times and returns the nanoseconds per
// item of each timing and the items per call.
func measure(s gofss.Scheme, prg gofss.Prg, op string, bits int) ([]float64, int) {
	keys := *keysFlag
	if op == "eval_all" || op == "prg" {
		keys = 1 // a key to walk, or none used at all: no batch to make
	}
	r := rand.New(rand.NewPCG(1, 2))
	block := func() gofss.Block { return gofss.Block{Lo: r.Uint64(), Hi: r.Uint64()} }
	seeds, alphas, betas := make([]gofss.Block, 2*keys), make([]gofss.Uint128, keys), make([]gofss.Block, keys)
	for k := range keys {
		seeds[2*k], seeds[2*k+1], betas[k] = block(), block(), block()
		alphas[k] = gofss.Uint128{Lo: r.Uint64(), Hi: r.Uint64()}
		if bits < 64 {
			alphas[k] = gofss.Uint128{Lo: alphas[k].Lo & (1<<bits - 1)}
		} else if bits < 128 {
			alphas[k].Hi &= 1<<(bits-64) - 1
		}
	}
	cws, free := freshCws(keys * (bits + 1))
	defer free()
	check(s.Gen(cws, seeds, alphas, betas))
	p0 := make([]gofss.Block, keys)
	for k := range keys {
		p0[k] = seeds[2*k]
	}
	var call func() error
	items := keys
	switch op {
	case "gen":
		call = func() error { return s.Gen(cws, seeds, alphas, betas) }
	case "eval":
		out := make([]gofss.Block, keys)
		call = func() error { return s.Eval(out, 0, p0, cws, alphas) }
	case "eval_all":
		items = 1 << bits
		out := make([]gofss.Block, items)
		call = func() error { return s.EvalAll(out, 0, p0, cws) }
	case "prg":
		items = 1024
		in, out := make([]gofss.Block, items), make([]gofss.Block, items*prg.Mul())
		for i := range in {
			in[i] = block()
		}
		call = func() error { prg.Expand(out, in); return nil }
	default:
		check(fmt.Errorf("unknown op %q", op))
	}
	check(call()) // untimed: the first call also faults in the output's pages
	var samples []float64
	for range *repsFlag {
		n, start := 0, time.Now()
		for n == 0 || time.Since(start) < *minFlag {
			check(call())
			n++
		}
		samples = append(samples, float64(time.Since(start).Nanoseconds())/float64(n)/float64(items))
	}
	return samples, items
}

// median is the middle of xs (the mean of the middle two for an even count).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}

func list(s string) []string { return strings.Split(s, ",") }

func ints(s string) []int {
	var out []int
	for _, f := range list(s) {
		v, err := strconv.Atoi(f)
		check(err)
		out = append(out, v)
	}
	return out
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fssbench:", err)
		os.Exit(1)
	}
}
