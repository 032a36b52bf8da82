// Loaded before every test file (bunfig.toml): tests see UTC dates regardless of the machine.
process.env.TZ = "UTC";
