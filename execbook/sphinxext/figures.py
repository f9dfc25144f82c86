"""Figures a reader can open: each image of a page (a figure, a plot in an output) is a link to
the image itself, full size, so that a phone's reader can open it and zoom in."""

import re
from typing import TYPE_CHECKING, Any

from docutils import nodes

if TYPE_CHECKING:
    from sphinx.application import Sphinx

FULL_SIZE = {"es": "Abrir la imagen a tamaño completo", "en": "Open the image full size"}
IMAGE = re.compile(r'<img\b[^>]*\bsrc="([^"]*_images/[^"]+)"[^>]*>')


def link_images(
    app: "Sphinx", pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    body = context.get("body")
    if not body:
        return
    title = FULL_SIZE[app.config.language]
    parts, end = [], 0
    for image in IMAGE.finditer(body):
        before = body[: image.start()]
        if before.rfind("<a ") > before.rfind("</a>"):
            continue  # already inside a link
        parts += [
            body[end : image.start()],
            f'<a class="book-full-size" href="{image.group(1)}" title="{title}">',
            image.group(0),
            "</a>",
        ]
        end = image.end()
    context["body"] = "".join(parts) + body[end:]


def setup(app: "Sphinx") -> None:
    app.connect("html-page-context", link_images)
