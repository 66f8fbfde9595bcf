package room

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReplayCheckExcludesFieldsThatExist: the replay check (ReplayCheck)
// compares every field of a Game and of a member but those its lists
// exclude, each with its reason; an exclusion names a field there is, so
// that a field renamed is compared rather than forgotten.
func TestReplayCheckExcludesFieldsThatExist(t *testing.T) {
	for _, tt := range []struct {
		typ      reflect.Type
		excluded map[string]string
	}{
		{reflect.TypeFor[Game](), Excluded},
		{reflect.TypeFor[member](), MemberExcluded},
	} {
		for name, why := range tt.excluded {
			_, ok := tt.typ.FieldByName(name)
			assert.True(t, ok, "%s has no field %s", tt.typ, name)
			assert.NotEmpty(t, why, "%s.%s is excluded without a reason", tt.typ, name)
		}
	}
}
