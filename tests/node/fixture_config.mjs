// fixture_config.mjs - a NumPy fixture's options (the CLI's names: "a",
// "offset-a", "sweep" as "lo:hi:count") as the wrapper's config (the JSON
// names, "sentence_a", "offset_a"), paired by the core's option table.
export function fixtureConfig(options, table) {
  const config = {};
  for (const [key, value] of Object.entries(options)) {
    if (key === 'sweep') {
      const [lo, hi, count] = value.split(':').map(Number);
      config.sweep = { lo, hi, count };
    } else config[table.options.find((o) => o.name === key).json] = value;
  }
  return config;
}
