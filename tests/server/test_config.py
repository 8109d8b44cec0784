"""The service's own settings, loaded with pydantic-settings: file < environment < arguments, where the
environment reaches only the fields that name a variable and FACTDEBATE_API_KEYS adds keys to the file's."""

from __future__ import annotations

from pathlib import Path

import pytest

from factdebate.server.config import load_service_config
from factdebate.util.errors import ConfigError


def test_keys_from_the_environment_are_added_to_the_files(tmp_path: Path) -> None:
    path = tmp_path / "service.yaml"
    path.write_text("api_keys: [from-file]\nrate_burst: 3\nstate_db: sqlite:///file.db\n")
    env = {"FACTDEBATE_API_KEYS": "key-alpha, key-beta,", "FACTDEBATE_STATE_DB": "sqlite:///env.db"}
    config = load_service_config(path, environ=env)
    assert config.key_values() == ["from-file", "key-alpha", "key-beta"] and "key-alpha" not in repr(config)
    assert (config.rate_burst, config.state_db) == (3, "sqlite:///env.db")
    assert load_service_config(path, environ=env, api_keys=["only"], rate_burst=None).key_values() == ["only"]
    assert load_service_config(environ={"FACTDEBATE_SERVICE_CONFIG": str(path)}).rate_burst == 3


def test_no_other_field_is_read_from_the_environment() -> None:
    config = load_service_config(environ={"FACTDEBATE_ALLOW_ANONYMOUS": "true", "FACTDEBATE_CORS_ORIGINS": "[*]",
                                          "FACTDEBATE_STATE_DB": ""})
    assert (config.allow_anonymous, config.cors_origins, config.state_db) == (False, [], None)


def test_mistakes_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"cannot read service config .*nope\.yaml"):
        load_service_config(tmp_path / "nope.yaml", environ={})
    listed = tmp_path / "list.yaml"
    listed.write_text("[1]\n")
    with pytest.raises(ConfigError, match=r"service config .*list\.yaml must hold a mapping"):
        load_service_config(listed, environ={})
    with pytest.raises(ConfigError, match="invalid service config: max_body_bytes: Input should be greater"):
        load_service_config(environ={}, max_body_bytes=10)
