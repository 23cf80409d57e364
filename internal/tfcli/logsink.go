package tfcli

import "log"

// logSink is the test handle tf6server.WithLoggingSink wants outside a test:
// the sink writes the provider's logs to standard error, filtered by TF_LOG,
// and asks the handle only for its Name (the test name of TF_LOG_PATH_MASK,
// here empty). The other methods complete the interface the way a runtime
// handle does: messages go to the standard logger, failing and skipping are
// not tracked, and a fatal call panics, since nothing may stop the process.
type logSink struct{}

func (logSink) Cleanup(func())                      {}
func (logSink) Error(args ...any)                   { log.Println(args...) }
func (logSink) Errorf(format string, args ...any)   { log.Printf(format, args...) }
func (logSink) Fail()                               {}
func (logSink) FailNow()                            { panic("tfcli: FailNow on the logging sink") }
func (logSink) Failed() bool                        { return false }
func (s logSink) Fatal(args ...any)                 { log.Print(args...); s.FailNow() }
func (s logSink) Fatalf(format string, args ...any) { log.Printf(format, args...); s.FailNow() }
func (logSink) Helper()                             {}
func (logSink) Log(args ...any)                     { log.Println(args...) }
func (logSink) Logf(format string, args ...any)     { log.Printf(format, args...) }
func (logSink) Name() string                        { return "" }
func (logSink) Parallel()                           {}
func (logSink) Skip(args ...any)                    { log.Print(args...) }
func (logSink) SkipNow()                            {}
func (logSink) Skipf(format string, args ...any)    { log.Printf(format, args...) }
func (logSink) Skipped() bool                       { return false }
