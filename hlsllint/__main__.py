from hlsllint.cli import main

raise SystemExit(main())
