"""The library's front door: a ``Session`` (a pipeline loaded once) turns texts of any length
into ``SanitizedRecord``s; the CLI, the service, batch, Ray and the report are adapters over it."""
