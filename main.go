package main

import (
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/zdm/terraform-provider-zdm/internal/logging"
	"github.com/zdm/terraform-provider-zdm/internal/provider"
)

// version is set by the release build (goreleaser: -X main.version={{.Version}}).
var version = "dev"

func main() {
	var debug bool

	flag.BoolVar(&debug, "debug", false, "set to true to run the provider with support for debuggers like delve")
	flag.Parse()
	if !debug {
		outliveTERM()
		// In debug mode the logs go to the terminal of the debug session.
		if err := logging.QuietUnreadLogs(os.Environ(), os.Setenv); err != nil {
			log.Fatal(err.Error())
		}
	}

	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	newServer := provider.NewServer(version)
	if _, err := newServer(); err != nil { // the framework checks the provider's definitions here
		log.Fatal(err.Error())
	}
	err := tf6server.Serve("registry.terraform.io/zdm/zdm", func() tfprotov6.ProviderServer {
		s, err := newServer()
		if err != nil {
			log.Fatal(err.Error())
		}
		return s
	}, opts...)
	if err != nil {
		log.Fatal(err.Error())
	}
}
