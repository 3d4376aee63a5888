package demo

import kotlin.math.PI

const val LIMIT = 10

interface Shape {
    fun area(): Double
}

data class Circle(val r: Double) : Shape {
    override fun area(): Double = PI * r * r
}

object Registry {
    val shapes = mutableListOf<Shape>()
    fun register(s: Shape) {
        shapes.add(s)
    }
}

enum class Color { RED, GREEN }

typealias Shapes = List<Shape>

fun main() {
    Registry.register(Circle(1.0))
}
