package types

import (
	"testing"
)

func TestNewTimeUUID(t *testing.T) {
	prev := NewTimeUUID()
	for i := 0; i < 10000; i++ {
		u := NewTimeUUID()
		if err := Validate(Timeuuid, u); err != nil {
			t.Fatal(err)
		}
		if u[8]&0xC0 != 0x80 {
			t.Fatalf("variant bits of %x", u)
		}
		if Compare(Timeuuid, prev, u) >= 0 {
			t.Fatalf("not increasing: %x then %x", prev, u)
		}
		prev = u
	}
}

func TestTimeUUIDBounds(t *testing.T) {
	for _, ms := range []int64{0, 1, 1768888800000, 1 << 40} {
		lo, hi := MinTimeUUID(ms), MaxTimeUUID(ms)
		for _, u := range [][]byte{lo, hi} {
			if got, err := TimeUUIDTimestamp(u); err != nil || got != ms {
				t.Errorf("ms %d: TimeUUIDTimestamp(%x) = %d, %v", ms, u, got, err)
			}
		}
		if Compare(Timeuuid, lo, hi) >= 0 {
			t.Errorf("ms %d: min %x not below max %x", ms, lo, hi)
		}
		if Compare(Timeuuid, MaxTimeUUID(ms-1), lo) >= 0 || Compare(Timeuuid, hi, MinTimeUUID(ms+1)) >= 0 {
			t.Errorf("ms %d: bounds overlap neighbouring milliseconds", ms)
		}
	}
	// A generated UUID lies within its millisecond's bounds.
	u := NewTimeUUID()
	ms, _ := TimeUUIDTimestamp(u)
	if Compare(Timeuuid, MinTimeUUID(ms), u) > 0 || Compare(Timeuuid, u, MaxTimeUUID(ms)) > 0 {
		t.Errorf("%x outside [min, max] of %d", u, ms)
	}
	// Cross-checked with Python's uuid module.
	if got := formatUUID(MinTimeUUID(1356998700000)); got != "e23f1e00-53a6-11e2-8080-808080808080" {
		t.Errorf("MinTimeUUID = %s", got)
	}
	if ms, _ := TimeUUIDTimestamp(h("50554d6e29bb11e5b345feff819cdc9f")); ms != 1436832018805 {
		t.Errorf("TimeUUIDTimestamp = %d", ms)
	}
	// Before the epoch Cassandra truncates microseconds toward zero.
	if ms, _ := TimeUUIDTimestamp(MinTimeUUID(-1)); ms != -1 {
		t.Errorf("TimeUUIDTimestamp(MinTimeUUID(-1)) = %d", ms)
	}
	if _, err := TimeUUIDTimestamp(NewRandomUUID()); err == nil {
		t.Error("TimeUUIDTimestamp accepted a version 4 UUID")
	}
}

func TestNewRandomUUID(t *testing.T) {
	u := NewRandomUUID()
	if len(u) != 16 || u[6]>>4 != 4 || u[8]&0xC0 != 0x80 {
		t.Errorf("bad v4 uuid %x", u)
	}
}
