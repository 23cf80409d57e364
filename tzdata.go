package main

// The provider reads IANA time zones (a rollout's maintenance_window
// time_zone) with time.LoadLocation, which looks for the system's zone
// database: Windows and minimal containers (distroless, scratch, some CI
// images) have none, and every zone would then be refused as invalid. The
// binary embeds the database (about 450 KB), used when the system has
// none. TestAccBinaryLoadsZonesWithoutSystemDatabase runs the built binary
// with the system's zone files hidden.
import _ "time/tzdata"
