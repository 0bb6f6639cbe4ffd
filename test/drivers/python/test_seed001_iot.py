"""Seed 001: the IoT tables iot_data_error and iot_data_optimized, as written."""

import datetime
import unittest

import partita_env as env

# The seed's DDL, comments included (translated), exactly as a user pastes it.
IOT_DATA_ERROR = """
-- Wrong: device_id alone as the partition key puts a device's whole history in one partition
CREATE TABLE IF NOT EXISTS iot_data_error (
    device_id text,          -- device id
    time timestamp,          -- report time
    temperature float,       -- temperature
    humidity float,         -- humidity
    voltage float,          -- voltage
    signal_strength float,   -- signal strength
    PRIMARY KEY (device_id)  -- wrong partition key, no time dimension
);"""

IOT_DATA_OPTIMIZED = """
-- Better: (device_id, year_month) gives each device one partition per month
CREATE TABLE IF NOT EXISTS iot_data_optimized (
    device_id text,          -- device id (partition key, business dimension)
    year_month text,         -- time dimension (yyyyMM, e.g. 202405)
    time timestamp,          -- report time (clustering key)
    temperature float,       -- only the columns the query needs
    PRIMARY KEY ((device_id, year_month), time) -- the parenthesised columns form one partition key
);"""

SEED_QUERY = """SELECT time, temperature 
FROM iot_data_optimized 
WHERE device_id = 'device_123' 
  AND year_month = '202405' 
ORDER BY time DESC -- the clustering key already orders by time: read it backwards
LIMIT 10; -- bound the rows read"""


class IotTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = env.session()
        cls.s.execute(IOT_DATA_ERROR)
        cls.s.execute(IOT_DATA_OPTIMIZED)

    def test_error_table_keeps_one_row_per_device(self):
        insert = self.s.prepare(
            "INSERT INTO iot_data_error (device_id, time, temperature, humidity, voltage, signal_strength) "
            "VALUES (?, ?, ?, ?, ?, ?)"
        )
        for minute in range(5):
            self.s.execute(insert, ("device_123", datetime.datetime(2024, 5, 1, 0, minute), 20.0 + minute, 50.0, 3.5, -70.0))
        rows = list(self.s.execute("SELECT device_id, time, temperature FROM iot_data_error WHERE device_id = 'device_123'"))
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0].time, datetime.datetime(2024, 5, 1, 0, 4))
        self.assertEqual(rows[0].temperature, 24.0)
        self.assertEqual(self.s.execute("SELECT count(*) FROM iot_data_error").one()[0], 1)

    def test_latest_ten_readings_of_a_month(self):
        insert = self.s.prepare(
            "INSERT INTO iot_data_optimized (device_id, year_month, time, temperature) VALUES (?, ?, ?, ?)"
        )
        may = [datetime.datetime(2024, 5, day, 12) for day in range(1, 16)]
        for i, t in enumerate(reversed(may)):  # written newest first
            self.s.execute(insert, ("device_123", "202405", t, 10.0 + 0.5 * (15 - i)))
        self.s.execute(insert, ("device_123", "202406", datetime.datetime(2024, 6, 1), 99.0))
        self.s.execute(insert, ("device_456", "202405", datetime.datetime(2024, 5, 31), 98.0))

        rows = list(self.s.execute(SEED_QUERY))
        self.assertEqual(rows[0]._fields, ("time", "temperature"))
        self.assertEqual([r.time for r in rows], sorted(may, reverse=True)[:10])
        self.assertEqual([r.temperature for r in rows], [10.0 + 0.5 * d for d in range(15, 5, -1)])

        asc = list(
            self.s.execute(
                "SELECT time FROM iot_data_optimized WHERE device_id = 'device_123' AND year_month = '202405' LIMIT 3"
            )
        )
        self.assertEqual([r.time for r in asc], may[:3])


if __name__ == "__main__":
    unittest.main()
