"""Run-time support of compiled functions: DLPack structures and argument marshalling."""
