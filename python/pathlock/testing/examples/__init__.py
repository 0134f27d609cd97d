"""Async locks with the design notes' interface, as targets for
``pathlock.testing``: the notes' own designs (``design_notes``) and
deliberately broken locks (``broken``)."""
