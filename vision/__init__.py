"""Camera scoring: the mat, deck calibration and the readers of each game.

- :mod:`vision.sources`: cameras, streams, folders and files behind one ``read()``.
- :mod:`vision.mat`: the printed ArUco mat, its ``mat.json``, photo -> mat millimetres.
- :mod:`vision.lighting`: the mat's light divided out; what is card, mat or glare.
- :mod:`vision.decks`, :mod:`vision.matching`: deck and faces files, cached templates.
- :mod:`vision.capture`: card images cut out of a photo (``capture-deck``).
- :mod:`vision.shoal`, :mod:`vision.poodivers`: the readers; :mod:`vision.scoring` for
  ``companion score shoal``; :mod:`vision.commands` for ``companion vision``.
- :mod:`vision.synth`, :mod:`vision.art`: synthetic photos with ground truth.
"""
