package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

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

	opts := providerserver.ServeOpts{
		Address:         "registry.terraform.io/zdm/zdm",
		Debug:           debug,
		ProtocolVersion: 6,
	}

	err := providerserver.Serve(context.Background(), provider.New(version), opts)
	if err != nil {
		log.Fatal(err.Error())
	}
}
