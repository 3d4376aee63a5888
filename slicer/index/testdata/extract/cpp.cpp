#include <string>

namespace geo {

class Shape {
public:
    virtual double area() const = 0;
    std::string name;
};

struct Point {
    int x, y;
};

class Circle : public Shape {
public:
    explicit Circle(double r) : r_(r) {}
    double area() const override { return 3.14 * r_ * r_; }
private:
    double r_;
};

template <typename T>
T max_of(T a, T b) {
    return a > b ? a : b;
}

double Shape::perimeter() const {
    return 0;
}

}  // namespace geo
