import Foundation

protocol Shape {
    func area() -> Double
}

struct Circle: Shape {
    let radius: Double

    func area() -> Double {
        return Double.pi * radius * radius
    }
}

class Registry {
    var shapes: [Shape] = []

    init() {}

    func register(_ s: Shape) {
        shapes.append(s)
    }
}

enum Color {
    case red, green
}

extension Circle {
    var diameter: Double { radius * 2 }
}

let limit = 10

func main() {
    Registry().register(Circle(radius: 1))
}
