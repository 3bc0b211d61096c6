"""Blender side of ``benchmarks/render_blender.py``: builds each table of a job file in
Cycles and renders it. Run by that script (never by the tests)::

    blender -b --factory-startup -t 1 -P benchmarks/blender_scene.py -- jobs.json

Units are metres; the mat lies in the z = 0 plane with its top-left corner at the
origin, mat x to world +x and mat y (down the page) to world -y. Each job gives the mat
texture and size, the cards (texture, centre, size, angle, height, curl), the camera
(position, target, roll, lens, f-stop), the lamp and the window, and the output path.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import bpy
from mathutils import Matrix, Quaternion, Vector


def _mm(x: float, y: float, z: float = 0.0) -> Vector:
    return Vector((x / 1000, -y / 1000, z / 1000))


def _material(name: str, image: str | None, colour: tuple[float, float, float],
              roughness: float, coat: float) -> bpy.types.Material:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = roughness
    bsdf.inputs["Clearcoat"].default_value = coat
    bsdf.inputs["Clearcoat Roughness"].default_value = 0.04
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    if image:
        tex = mat.node_tree.nodes.new("ShaderNodeTexImage")
        tex.image = bpy.data.images.load(image)
        tex.interpolation = "Cubic"
        mat.node_tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    return mat


def _sheet(name: str, w_mm: float, h_mm: float, subdivisions: tuple[int, int]
           ) -> bpy.types.Object:
    """A grid w x h mm, centred on the origin, with UVs over the whole image."""
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=subdivisions[0],
                                    y_subdivisions=subdivisions[1], size=1, calc_uvs=True)
    obj = bpy.context.active_object
    obj.name = name
    for v in obj.data.vertices:
        v.co.x *= w_mm / 1000
        v.co.y *= h_mm / 1000
    return obj


def _card(i: int, card: dict, white: bpy.types.Material) -> None:
    w, h = card["size_mm"]
    obj = _sheet(f"card{i}", w, h, (14, 10))
    long_half = max(w, h) / 2000
    for v in obj.data.vertices:  # a card bows a little along its long side
        t = (v.co.x if w >= h else v.co.y) / long_half
        v.co.z = card["curl_mm"] / 1000 * t * t
    obj.data.materials.append(_material(f"face{i}", card["image"], (1, 1, 1),
                                        card["roughness"], card["coat"]))
    obj.data.materials.append(white)
    solid = obj.modifiers.new("thickness", "SOLIDIFY")
    solid.thickness = card["thickness_mm"] / 1000
    solid.offset = -1.0
    solid.material_offset_rim = 1
    solid.material_offset = 1
    bpy.ops.object.shade_smooth()
    cx, cy = card["centre_mm"]
    obj.location = _mm(cx, cy, card["z_mm"])
    obj.rotation_euler = (0.0, 0.0, -math.radians(card["angle_deg"]))


def _blackbody(light: bpy.types.Light, kelvin: float) -> None:
    light.use_nodes = True
    nodes = light.node_tree.nodes
    body = nodes.new("ShaderNodeBlackbody")
    body.inputs["Temperature"].default_value = kelvin
    light.node_tree.links.new(body.outputs["Color"], nodes["Emission"].inputs["Color"])


def _area(name: str, size: tuple[float, float], at: Vector, target: Vector, watts: float,
          kelvin: float) -> None:
    data = bpy.data.lights.new(name, "AREA")
    data.shape = "RECTANGLE"
    data.size, data.size_y = size
    data.energy = watts
    _blackbody(data, kelvin)
    obj = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(obj)
    obj.location = at
    obj.rotation_euler = (target - at).to_track_quat("-Z", "Y").to_euler()


def _table(colour: tuple[float, float, float]) -> None:
    obj = _sheet("table", 3000, 3000, (2, 2))
    mat = bpy.data.materials.new("wood")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = 0.45
    wave = nodes.new("ShaderNodeTexWave")
    wave.inputs["Scale"].default_value = 6.0
    wave.inputs["Distortion"].default_value = 4.0
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = (*[c * 0.6 for c in colour], 1)
    ramp.color_ramp.elements[1].color = (*colour, 1)
    links.new(wave.outputs["Fac"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    obj.data.materials.append(mat)
    obj.location = Vector((0, 0, -0.0005))


def build(job: dict) -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = job["samples"]
    scene.cycles.use_denoising = False  # Debian's Blender has no OpenImageDenoise
    scene.cycles.max_bounces = 3
    scene.cycles.diffuse_bounces = 2
    scene.cycles.glossy_bounces = 2
    scene.cycles.transmission_bounces = 0
    scene.cycles.transparent_max_bounces = 0
    scene.cycles.caustics_reflective = False
    scene.cycles.caustics_refractive = False
    scene.cycles.sample_clamp_indirect = 8.0
    scene.render.resolution_x, scene.render.resolution_y = job["resolution"]
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.exposure = job["exposure"]
    scene.render.threads_mode = "FIXED"
    scene.render.threads = 1
    scene.cycles.seed = job["seed"]
    world = bpy.data.worlds.new("room")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = job["ambient"]
    scene.world = world

    _table(tuple(job["table_rgb"]))
    w, h = job["mat_mm"]
    mat = _sheet("mat", w, h, (2, 2))
    mat.data.materials.append(_material("paper", job["mat_image"], (1, 1, 1),
                                        job["mat_roughness"], job["mat_coat"]))
    mat.location = _mm(w / 2, h / 2)
    white = _material("core", None, (0.85, 0.85, 0.82), 0.7, 0.0)
    for i, card in enumerate(job["cards"]):
        _card(i, card, white)

    lamp, window = job["lamp"], job["window"]
    _area("lamp", (lamp["size_m"], lamp["size_m"]), _mm(*lamp["at_mm"]),
          _mm(*lamp["target_mm"]), lamp["watts"], lamp["kelvin"])
    _area("window", tuple(window["size_m"]), _mm(*window["at_mm"]),
          _mm(*window["target_mm"]), window["watts"], window["kelvin"])

    cam = job["camera"]
    data = bpy.data.cameras.new("phone")
    data.lens = cam["lens_mm"]
    data.sensor_width = cam["sensor_mm"]
    data.dof.use_dof = True
    data.dof.aperture_fstop = cam["fstop"]
    obj = bpy.data.objects.new("phone", data)
    scene.collection.objects.link(obj)
    at, target = _mm(*cam["at_mm"]), _mm(*cam["target_mm"])
    obj.location = at
    forward = (target - at).normalized()  # the photo's up is the mat's top, then rolled
    right = forward.cross(Vector((0.0, 1.0, 0.0))).normalized()
    up = right.cross(forward)
    look = Matrix((right, up, -forward)).transposed().to_quaternion()
    obj.rotation_euler = (look @ Quaternion((0, 0, 1), math.radians(cam["roll_deg"]))
                          ).to_euler()
    data.dof.focus_distance = (target - at).length
    scene.camera = obj
    scene.render.filepath = job["png"]


def main() -> None:
    jobs = json.loads(Path(sys.argv[sys.argv.index("--") + 1]).read_text(encoding="utf-8"))
    for job in jobs:
        build(job)
        bpy.ops.render.render(write_still=True)
        print("rendered", job["png"], flush=True)


main()
