"""The `clients` tier: real agent CLIs driven by a scripted model; the browser fixtures are the e2e tier's."""

from tests.e2e.conftest import host_env, pw

__all__ = ["host_env", "pw"]
