# en: the setting as the engine declares it: type, default, what it is
# es: el ajuste como lo declara el motor: tipo, valor por defecto, qué es
from execbook.config import schema

schema()["properties"]["cell-timeout"]

# %% hidden checks: the page quotes the default
from execbook import glue_number

default = schema()["properties"]["cell-timeout"]["default"]
glue_number("default_timeout", default)
assert default >= 60, "the page says the default is meant for a whole build, not one page"
