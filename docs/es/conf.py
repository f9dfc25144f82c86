from execbook.sphinxext.config import configure

globals().update(configure("es"))
