import os

MAX_SIZE = 10


class Animal(Base):
    """An animal."""

    kind = "generic"

    def __init__(self, name):
        self.name = name

    @property
    def loud(self):
        return os.path.join(self.name, "x")


def greet(animal: Animal) -> str:
    def inner():
        return animal.name
    return inner()


async def fetch(url):
    pass
