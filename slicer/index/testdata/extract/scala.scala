package demo

import scala.math.Pi

trait Shape {
  def area: Double
}

case class Circle(r: Double) extends Shape {
  def area: Double = Pi * r * r
}

object Registry {
  val shapes = List.empty[Shape]
  def register(s: Shape): Unit = println(s)
}

class Box[T](val item: T) {
  var count = 0
}

type Shapes = List[Shape]

def main(): Unit = Registry.register(Circle(1.0))
