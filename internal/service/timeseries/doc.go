// Package timeseries is the time-series family: the zdm_timeseries data
// source over the storage service, with its compact point values.
package timeseries
