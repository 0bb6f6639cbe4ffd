package seeds

import (
	"slices"
	"testing"
	"time"

	"github.com/partita-db/partita/test/internal/cqltest"
)

// The seed's DDL and query, comments included (translated), as a user
// pastes them.
const (
	IoTDataError = `
-- Wrong: device_id alone as the partition key puts a device's whole history in one partition
CREATE TABLE IF NOT EXISTS iot_data_error (
    device_id text,          -- device id
    time timestamp,          -- report time
    temperature float,       -- temperature
    humidity float,         -- humidity
    voltage float,          -- voltage
    signal_strength float,   -- signal strength
    PRIMARY KEY (device_id)  -- wrong partition key, no time dimension
);`
	iotDataOptimized = `
-- Better: (device_id, year_month) gives each device one partition per month
CREATE TABLE IF NOT EXISTS iot_data_optimized (
    device_id text,          -- device id (partition key, business dimension)
    year_month text,         -- time dimension (yyyyMM, e.g. 202405)
    time timestamp,          -- report time (clustering key)
    temperature float,       -- only the columns the query needs
    PRIMARY KEY ((device_id, year_month), time) -- the parenthesised columns form one partition key
);`
	iotSeedQuery = `SELECT time, temperature 
FROM iot_data_optimized 
WHERE device_id = 'device_123' 
  AND year_month = '202405' 
ORDER BY time DESC -- the clustering key already orders by time: read it backwards
LIMIT 10; -- bound the rows read`
)

// Seed 001: iot_data_error overwrites one row per device;
// iot_data_optimized answers the seed's latest-ten query.
func Seed001IoT(t *testing.T, tg *cqltest.Target) {
	s := tg.NewKeyspace(t, "go_seed001")
	cqltest.MustExec(t, s, IoTDataError)
	cqltest.MustExec(t, s, iotDataOptimized)

	t.Run("iot_data_error", func(t *testing.T) {
		for m := range 5 {
			cqltest.MustExec(t, s, "INSERT INTO iot_data_error (device_id, time, temperature, humidity, voltage, signal_strength) "+
				"VALUES (?, ?, ?, ?, ?, ?)", "device_123", cqltest.UTC(2024, 5, 1, 0, m, 0), float32(20+m), float32(50), float32(3.5), float32(-70))
		}
		rows := cqltest.SelectMaps(t, s, "SELECT time, temperature FROM iot_data_error WHERE device_id = 'device_123'")
		cqltest.Equal(t, "time", cqltest.Column[time.Time](t, rows, "time"), []time.Time{cqltest.UTC(2024, 5, 1, 0, 4, 0)})
		cqltest.Equal(t, "temperature", cqltest.Column[float32](t, rows, "temperature"), []float32{24})
		var n int64
		if err := s.Query("SELECT count(*) FROM iot_data_error").Scan(&n); err != nil || n != 1 {
			t.Fatalf("count(*) = %d, %v; want 1", n, err)
		}
	})

	t.Run("iot_data_optimized", func(t *testing.T) {
		var may []time.Time
		for day := 15; day >= 1; day-- { // written newest first
			ts := cqltest.UTC(2024, 5, day, 12, 0, 0)
			may = append(may, ts)
			cqltest.MustExec(t, s, "INSERT INTO iot_data_optimized (device_id, year_month, time, temperature) VALUES (?, ?, ?, ?)",
				"device_123", "202405", ts, float32(10+0.5*float64(day)))
		}
		cqltest.MustExec(t, s, "INSERT INTO iot_data_optimized (device_id, year_month, time, temperature) VALUES ('device_123', '202406', '2024-06-01', 99)")
		cqltest.MustExec(t, s, "INSERT INTO iot_data_optimized (device_id, year_month, time, temperature) VALUES ('device_456', '202405', '2024-05-31', 98)")

		rows := cqltest.SelectMaps(t, s, iotSeedQuery)
		cqltest.Equal(t, "times", cqltest.Column[time.Time](t, rows, "time"), may[:10])
		var temps []float32
		for day := 15; day > 5; day-- {
			temps = append(temps, float32(10+0.5*float64(day)))
		}
		cqltest.Equal(t, "temperatures", cqltest.Column[float32](t, rows, "temperature"), temps)

		asc := slices.Clone(may)
		slices.Reverse(asc)
		rows = cqltest.SelectMaps(t, s, "SELECT time FROM iot_data_optimized WHERE device_id = 'device_123' AND year_month = '202405' LIMIT 3")
		cqltest.Equal(t, "ascending", cqltest.Column[time.Time](t, rows, "time"), asc[:3])

		var lo, hi, avg float32
		var n int64
		if err := s.Query("SELECT min(temperature), max(temperature), avg(temperature), count(*) FROM iot_data_optimized "+
			"WHERE device_id = 'device_123' AND year_month = '202405'").Scan(&lo, &hi, &avg, &n); err != nil {
			t.Fatal(err)
		}
		if lo != 10.5 || hi != 17.5 || avg != 14 || n != 15 {
			t.Fatalf("min %v max %v avg %v count %d; want 10.5 17.5 14 15", lo, hi, avg, n)
		}
	})
}
