"""`python -m tensortrace.torchgen`: regenerate the generated files (see gen.main)."""

from tensortrace.torchgen.gen import main

raise SystemExit(main())
