"""The subcommands behind `hlsllint.cli`: one module each (`check`, `rule`, `config`)."""
