from book.sphinxext.config import configure

globals().update(configure("es"))
