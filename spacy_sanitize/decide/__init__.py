"""The decide stage: components that turn risk scores into ``Span._.mask``."""
