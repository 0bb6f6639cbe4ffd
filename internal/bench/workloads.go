package bench

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"time"
)

// workload is a set of tables and the steps every system runs on them.
type workload struct {
	name        string
	description string
	tables      []*table
	steps       []*step
	// probe is a cheap CQL read of the workload's data: the query timed
	// after a restart.
	probe string
	// noFloor leaves the Pebble floor out of the workload's writes.
	noFloor bool
	// finish, when set, adds what the workload observed beyond its steps'
	// figures to its result, once every system has run it.
	finish func(*WorkloadResult)
}

// buildWorkload returns the named workload sized by o.
func buildWorkload(name string, o Options) (*workload, error) {
	switch name {
	case WorkloadIoT:
		return iotWorkload(o), nil
	case WorkloadUserEvents:
		return userEventsWorkload(o), nil
	case WorkloadHotAsset:
		return hotAssetWorkload(o)
	case WorkloadWide:
		return wideWorkload(o), nil
	case WorkloadTombstones:
		return tombstonesWorkload(o), nil
	case WorkloadLWT:
		return lwtWorkload(o), nil
	case WorkloadSplit:
		return splitWorkload(o), nil
	}
	return nil, fmt.Errorf("unknown workload %q", name)
}

// timedRequests bounds a timed step; the duration ends it first.
const timedRequests = 1 << 40

func one(args ...any) [][]any { return [][]any{args} }

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// iotWorkload is seed 001's iot_data_optimized: devices reporting one row
// per second of simulated time, partitioned by (device, month), then the
// seed's query, the latest 10 readings of a device-month.
func iotWorkload(o Options) *workload {
	t := &table{name: "iot_data_optimized", partition: 2, clustering: 1, desc: []bool{false},
		cols: []column{{"device_id", colText}, {"year_month", colText}, {"time", colTimestamp}, {"temperature", colFloat}}}
	devices := min(max(o.Rows/100, 1), 1000)
	ids := names("device-", devices)
	start := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	const month = "202405"
	return &workload{
		name:        WorkloadIoT,
		description: fmt.Sprintf("%d devices × 1 row/s into iot_data_optimized, then latest 10 of a device-month", devices),
		tables:      []*table{t},
		probe:       "SELECT time, temperature FROM iot_data_optimized WHERE device_id = 'device-0' AND year_month = '202405' LIMIT 1",
		steps: []*step{{
			name: "ingest", stmt: statement{kind: kindWrite, cql: t.insertCQL(), table: t},
			requests: o.Rows, ingest: true,
			args: func(i int) [][]any {
				sec := time.Duration(i/devices) * time.Second
				return one(ids[i%devices], month, start.Add(sec), float32(18+float64(i%120)/10))
			},
		}, {
			name: "latest-10", timed: true, requests: timedRequests,
			stmt: statement{kind: kindRead,
				cql: "SELECT time, temperature FROM iot_data_optimized WHERE device_id = ? AND year_month = ? ORDER BY time DESC LIMIT 10"},
			args:   func(i int) [][]any { return one(ids[pick(uint64(i), devices)], month) },
			expect: func(int) int { return min(10, o.Rows/devices) },
		}},
	}
}

// userEventsWorkload is seed 004's user_events_by_day: events of users in
// one day bucket, clustered newest first by (event_time DESC, event_id
// ASC), then the latest 20 of a user and a one-hour range.
func userEventsWorkload(o Options) *workload {
	t := &table{name: "user_events_by_day", partition: 2, clustering: 2, desc: []bool{true, false},
		cols: []column{{"user_id", colText}, {"bucket_date", colDate}, {"event_time", colTimestamp},
			{"event_id", colTimeUUID}, {"event_type", colText}, {"payload", colText}}}
	users := min(max(o.Rows/100, 1), 1000)
	perUser := (o.Rows + users - 1) / users
	ids := names("u-", users)
	day := time.Date(2025, 3, 8, 0, 0, 0, 0, time.UTC)
	spacing := 24 * time.Hour / time.Duration(perUser)
	eventTypes := []string{"login", "click", "view", "purchase"}
	const cols = "SELECT event_time, event_id, event_type, payload FROM user_events_by_day WHERE user_id = ? AND bucket_date = ?"
	const order = " ORDER BY event_time DESC, event_id ASC"
	return &workload{
		name:        WorkloadUserEvents,
		description: fmt.Sprintf("%d users × %d events in one day bucket (timeuuid clustering, DESC), then latest 20 and a 1-hour range", users, perUser),
		tables:      []*table{t},
		probe:       "SELECT event_time FROM user_events_by_day WHERE user_id = 'u-0' AND bucket_date = '2025-03-08' LIMIT 1",
		steps: []*step{{
			name: "ingest", stmt: statement{kind: kindWrite, cql: t.insertCQL(), table: t},
			requests: o.Rows, ingest: true,
			args: func(i int) [][]any {
				at := day.Add(time.Duration(i/users) * spacing).Truncate(time.Millisecond)
				payload := `{"ip":"203.0.113.` + strconv.Itoa(i%250) + `","seq":` + strconv.Itoa(i) + `}`
				return one(ids[i%users], day, at, timeUUID(at, uint64(i)), eventTypes[i%len(eventTypes)], payload)
			},
		}, {
			name: "latest-20", timed: true, requests: timedRequests,
			stmt:   statement{kind: kindRead, cql: cols + " LIMIT 20", sql: toSQL(cols) + order + " LIMIT 20"},
			args:   func(i int) [][]any { return one(ids[pick(uint64(i), users)], day) },
			expect: func(int) int { return min(20, o.Rows/users) },
		}, {
			name: "range-1h", timed: true, requests: timedRequests,
			stmt: statement{kind: kindRead, cql: cols + " AND event_time >= ? AND event_time < ?",
				sql: toSQL(cols+" AND event_time >= ? AND event_time < ?") + order},
			args: func(i int) [][]any {
				from := day.Add(time.Duration(pick(uint64(i)^0x5bd1e995, 24)) * time.Hour)
				return one(ids[pick(uint64(i), users)], day, from, from.Add(time.Hour))
			},
		}},
	}
}

// hotAssetWorkload is seed 003's events_by_asset_day: 200 assets written
// with Zipf skew (the hottest 50× the mean of the others), then the latest
// 20 events of an asset picked with the same skew and a one-hour range of
// the hot asset.
func hotAssetWorkload(o Options) (*workload, error) {
	const assets, hotFactor = 200, 50
	z, err := NewZipfHot(assets, hotFactor)
	if err != nil {
		return nil, err
	}
	t := &table{name: "events_by_asset_day", partition: 2, clustering: 1, desc: []bool{true},
		cols: []column{{"asset_id", colText}, {"day", colDate}, {"event_ts", colTimestamp}, {"payload", colText}}}
	ids := names("asset-", assets)
	day := time.Date(2026, 1, 20, 0, 0, 0, 0, time.UTC)
	spacing := max(24*time.Hour/time.Duration(o.Rows), time.Millisecond)
	asset := func(i int) int { return z.Pick(unit(uint64(i) ^ 0x9e3779b9)) }
	perAsset := make([]int, assets)
	for i := range o.Rows {
		perAsset[asset(i)]++
	}
	payload := fmt.Sprintf("%-100s", `{"kind":"playback","bitrate":4300}`)
	const sel = "SELECT event_ts, payload FROM events_by_asset_day WHERE asset_id = ? AND day = ?"
	return &workload{
		name: WorkloadHotAsset,
		description: fmt.Sprintf("%d assets, Zipf s=%.3f writes (asset-0 %d×), then latest 20 (same skew) and a 1-hour range of asset-0",
			assets, z.S(), hotFactor),
		tables: []*table{t},
		probe:  "SELECT event_ts FROM events_by_asset_day WHERE asset_id = 'asset-0' AND day = '2026-01-20' LIMIT 1",
		steps: []*step{{
			name: "ingest", stmt: statement{kind: kindWrite, cql: t.insertCQL(), table: t},
			requests: o.Rows, ingest: true,
			args: func(i int) [][]any {
				return one(ids[asset(i)], day, day.Add(time.Duration(i)*spacing).Truncate(time.Millisecond), payload)
			},
		}, {
			name: "latest-20", timed: true, requests: timedRequests,
			stmt:   statement{kind: kindRead, cql: sel + " LIMIT 20", sql: toSQL(sel) + " ORDER BY event_ts DESC LIMIT 20"},
			args:   func(i int) [][]any { return one(ids[asset(i+o.Rows)], day) },
			expect: func(i int) int { return min(20, perAsset[asset(i+o.Rows)]) },
		}, {
			name: "hot-range-1h", timed: true, requests: timedRequests,
			stmt: statement{kind: kindRead, cql: sel + " AND event_ts >= ? AND event_ts < ?",
				sql: toSQL(sel+" AND event_ts >= ? AND event_ts < ?") + " ORDER BY event_ts DESC"},
			args: func(i int) [][]any {
				from := day.Add(time.Duration(pick(uint64(i), 24)) * time.Hour)
				return one(ids[0], day, from, from.Add(time.Hour))
			},
		}},
	}, nil
}

// timeUUID is a version 1 UUID for t whose clock sequence and node come
// from seq, so that each index gets its own identifier, deterministically.
func timeUUID(t time.Time, seq uint64) [16]byte {
	// 100 ns intervals since the Gregorian epoch, 1582-10-15 (RFC 4122 §4.1.4).
	const gregorianOffset = 0x01B21DD213814000
	ts := uint64(t.UnixNano()/100) + gregorianOffset
	var u [16]byte
	binary.BigEndian.PutUint32(u[0:], uint32(ts))
	binary.BigEndian.PutUint16(u[4:], uint16(ts>>32))
	binary.BigEndian.PutUint16(u[6:], uint16(ts>>48)&0x0fff|0x1000)
	h := splitmix(seq)
	binary.BigEndian.PutUint64(u[8:], h)
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u
}
