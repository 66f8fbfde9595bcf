package engine

import "testing"

// FuzzParse feeds arbitrary text to Parse: it must never panic, and whatever
// it accepts must format back to 81 characters that parse to the same grid.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f, 200) {
		f.Add(s)
	}
	f.Add(MustParse(inkala).Pretty())
	f.Add("")
	f.Add("x")
	f.Fuzz(func(t *testing.T, s string) {
		g, err := Parse(s)
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error of type %T, want *ParseError", err)
			}
			if g != (Grid{}) {
				t.Fatal("failed parse returned a non-zero grid")
			}
			return
		}
		out := g.String()
		if len(out) != NumCells {
			t.Fatalf("String() has %d characters", len(out))
		}
		back, err := Parse(out)
		if err != nil || back != g {
			t.Fatalf("round trip of %q: %v", out, err)
		}
		for _, v := range g {
			if v > 9 {
				t.Fatalf("digit %d out of range", v)
			}
		}
	})
}
